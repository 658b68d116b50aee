// Manual control over real HTTP on loopback and a real pseudo-terminal pair: the jog pad's routes
// and the console reach the fake Marlin as exact lines, its M114 answers become the status's
// position, and nothing manual reaches the controller while a job holds it.
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { MachineEvent } from '../../../engine/machine/types.ts';
import { eventually } from '../../../engine/testing/eventually.ts';
import { createHttpApp } from '../../http/app.ts';
import type { FakeMarlinOptions } from '../testing/fake-marlin.ts';
import { attachFakeMarlin } from '../testing/fake-marlin-port.ts';
import { FakeMotion, FIVE_AXES, THREE_AXES } from '../testing/fake-motion.ts';
import { createPtyPair } from '../testing/pty-pair.ts';
import { MachineController } from './controller.ts';
import { machineRoutes } from './routes.ts';

const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 1000, identifyIdleMs: 1000, idleTimeoutMs: 2000 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function bench(axes: readonly string[] = FIVE_AXES, fake: Omit<FakeMarlinOptions, 'send'> = {}) {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const motion = new FakeMotion(axes);
  const onPort = await attachFakeMarlin(pair.far, { react: motion.react, ...fake });
  cleanups.push(() => onPort.close());
  const machine = new MachineController({ timings: TIMINGS });
  cleanups.push(() => machine.close());
  const events: MachineEvent[] = [];
  machine.subscribe((event) => events.push(event));
  const app = createHttpApp(pino({ level: 'silent' }), 'lan');
  await app.register(machineRoutes, { machine, allowRemote: () => false, allowedRoots: [] });
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const post = async (path: string, body?: unknown) => {
    const response = await fetch(`${base}/api/machine/${path}`, {
      method: 'POST',
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { pair, fake: onPort.fake, motion, machine, events, app: app as FastifyInstance, post };
}

type Bench = Awaited<ReturnType<typeof bench>>;

/** The commands the fake accepted since `from`. */
const since = (b: Bench, from: number) => b.fake.commands.slice(from);

describe('manual control', () => {
  it('sends each action as its exact lines and reads the position after it (xab)', async () => {
    const b = await bench();
    const connected = await b.post('connect', { port: b.pair.near, axisFormat: 'xab' });
    expect(connected.body).toMatchObject({ state: 'ready', axisFormat: 'xab' });
    expect(connected.body.position).toBeUndefined();

    const home = await b.post('home', {});
    expect(home.status).toBe(200);
    expect(home.body).toMatchObject({
      commands: ['G28', 'M114'],
      status: { state: 'ready', position: { x: 0, a: 0, b: 0 } },
    });
    expect(b.fake.commands).toEqual(['G28', 'M114']);

    let at = b.fake.commands.length;
    const jog = await b.post('jog', { axis: 'X', step: 10, feed: 3000 });
    expect(jog.status).toBe(200);
    expect(since(b, at)).toEqual(['G91', 'G1 X10 F3000', 'G90', 'M114']);
    expect(jog.body.responses).toContain(
      'X:10.00 Y:0.00 Z:0.00 A:0.00 B:0.00 E:0.00 Count X:800 Y:0 Z:0 A:0 B:0',
    );
    expect(jog.body).toMatchObject({ status: { position: { x: 10, a: 0, b: 0 } } });

    at = b.fake.commands.length;
    await b.post('jog', { axis: 'A', step: -0.1, feed: 600 });
    await b.post('jog', { axis: 'B', step: 100, feed: 1200.5 });
    expect(since(b, at)).toEqual([
      'G91',
      'G1 A-0.1 F600',
      'G90',
      'M114',
      'G91',
      'G1 B100 F1200.5',
      'G90',
      'M114',
    ]);
    expect(b.machine.status().position).toEqual({ x: 10, a: -0.1, b: 100 });
    // Each axis the other way too.
    at = b.fake.commands.length;
    await b.post('jog', { axis: 'X', step: -1, feed: 3000 });
    await b.post('jog', { axis: 'A', step: 1, feed: 600 });
    await b.post('jog', { axis: 'B', step: -10, feed: 600 });
    expect(since(b, at)).toEqual(
      ['G1 X-1 F3000', 'G1 A1 F600', 'G1 B-10 F600'].flatMap((move) => ['G91', move, 'G90', 'M114']),
    );
    expect(b.machine.status().position).toEqual({ x: 9, a: 0.9, b: 90 });
    // Back in absolute mode after every jog.
    expect(b.motion.relative).toBe(false);

    at = b.fake.commands.length;
    const zero = await b.post('zero', { axis: 'A' });
    expect(zero.body).toMatchObject({
      commands: ['G92 A0', 'M114'],
      status: { position: { x: 9, a: 0, b: 90 } },
    });
    await b.post('zero', {});
    await b.post('home', { axis: 'B' });
    await b.post('home', { axis: 'X' });
    await b.post('home', { axis: 'A' });
    const off = await b.post('motors-off');
    const read = await b.post('position');
    expect(since(b, at)).toEqual([
      'G92 A0',
      'M114',
      'G92 X0 A0 B0',
      'M114',
      'G28 B',
      'M114',
      'G28 X',
      'M114',
      'G28 A',
      'M114',
      'M18',
      'M114',
      'M114',
    ]);
    expect(off.body).toMatchObject({ commands: ['M18', 'M114'] });
    expect(b.motion.motorsOff).toBe(true);
    expect(read.body).toMatchObject({ commands: ['M114'], status: { position: { x: 0, a: 0, b: 0 } } });

    // Each read is an event, so a watching panel sees the position change.
    const positions = b.events.flatMap((e) => (e.type === 'position' ? [e.position] : []));
    expect(positions).toContainEqual({ x: 10, a: -0.1, b: 100 });
    // The lines go to the machine log as sent and received lines.
    expect(b.events).toContainEqual(
      expect.objectContaining({
        type: 'log',
        direction: 'tx',
        text: expect.stringMatching(/ G1 X10 F3000\*/),
      }),
    );
  });

  it('uses Y and Z for A and B on an xyz controller, and says so when M114 lacks the axes', async () => {
    const b = await bench(THREE_AXES);
    await b.post('connect', { port: b.pair.near, axisFormat: 'xyz' });
    const jog = await b.post('jog', { axis: 'A', step: 1, feed: 500 });
    await b.post('jog', { axis: 'B', step: -10, feed: 500 });
    await b.post('home', { axis: 'A' });
    await b.post('zero', { axis: 'B' });
    expect(b.fake.commands).toEqual([
      'G91',
      'G1 Y1 F500',
      'G90',
      'M114',
      'G91',
      'G1 Z-10 F500',
      'G90',
      'M114',
      'G28 Y',
      'M114',
      'G92 Z0',
      'M114',
    ]);
    expect(jog.body).toMatchObject({ status: { axisFormat: 'xyz', position: { x: 0, a: 1, b: 0 } } });
    expect(b.machine.status().position).toEqual({ x: 0, a: 0, b: 0 });

    // The same three-axis controller taken for an xab one: its answer has no A or B.
    await b.post('disconnect');
    await b.post('connect', { port: b.pair.near, axisFormat: 'xab' });
    const read = await b.post('position');
    expect(read).toEqual({
      status: 502,
      body: {
        detail:
          "The controller's answer to M114 has no X, A, B position (axis format xab): X:0.00 Y:0.00 Z:0.00 E:0.00 Count X:0 Y:0 Z:0 | ok",
      },
    });
    // A move is still made; only the position stays unknown.
    const jog2 = await b.post('jog', { axis: 'X', step: 1, feed: 100 });
    expect(jog2.status).toBe(200);
    expect((jog2.body.status as Record<string, unknown>).position).toBeUndefined();
  });

  it('sends a console line and answers with what the controller said', async () => {
    const b = await bench();
    await b.post('connect', { port: b.pair.near });
    const info = await b.post('command', { command: 'M115 ; who are you' });
    expect(info.status).toBe(200);
    // Framed, so the fake counts it among the commands (M115 unframed at connect is not).
    expect(b.fake.commands).toEqual(['M115']);
    expect((info.body.responses as string[]).at(-1)).toBe('ok');

    const move = await b.post('command', { command: 'G1 X5 A90 F1000' });
    expect(move.body).toEqual({ responses: ['ok'] });
    // A move typed in the console is followed by a position read.
    expect(b.fake.commands.slice(1)).toEqual(['G1 X5 A90 F1000', 'M114']);
    expect(b.machine.status().position).toEqual({ x: 5, a: 90, b: 0 });

    b.motion.position.set('X', 7);
    const asked = await b.post('command', { command: 'M114' });
    expect(asked.body).toEqual({
      responses: ['X:7.00 Y:0.00 Z:0.00 A:90.00 B:0.00 E:0.00 Count X:560 Y:0 Z:0 A:7200 B:0', 'ok'],
    });
    expect(b.fake.commands.slice(3)).toEqual(['M114']);
    expect(b.machine.status().position).toEqual({ x: 7, a: 90, b: 0 });
  });

  it('refuses bad input with 400 and sends nothing', async () => {
    const b = await bench();
    await b.post('connect', { port: b.pair.near });
    const cases: [string, unknown, string][] = [
      ['jog', { axis: 'Y', step: 1, feed: 100 }, 'Invalid request body: axis: must be one of X, A, B'],
      ['jog', { axis: 'x', step: 1, feed: 100 }, 'Invalid request body: axis: must be one of X, A, B'],
      ['jog', { step: 1, feed: 100 }, 'Invalid request body: axis: must be one of X, A, B'],
      [
        'jog',
        { axis: 'X', step: 5, feed: 100 },
        'Invalid request body: step: must be one of ±0.1, ±1, ±10, ±100',
      ],
      [
        'jog',
        { axis: 'X', step: '1', feed: 100 },
        'Invalid request body: step: Invalid input: expected number, received string',
      ],
      ['jog', { axis: 'X', step: 1 }, 'Invalid request body: feed: Field required'],
      [
        'jog',
        { axis: 'X', step: 1, feed: 0 },
        'Invalid request body: feed: must be more than 0 and at most 20000',
      ],
      [
        'jog',
        { axis: 'X', step: 1, feed: -50 },
        'Invalid request body: feed: must be more than 0 and at most 20000',
      ],
      [
        'jog',
        { axis: 'X', step: 1, feed: 1e9 },
        'Invalid request body: feed: must be more than 0 and at most 20000',
      ],
      ['home', { axis: 'Z' }, 'Invalid request body: axis: must be one of X, A, B, all'],
      ['zero', { axis: 'E' }, 'Invalid request body: axis: must be one of X, A, B, all'],
      [
        'connect',
        { port: b.pair.near, axisFormat: 'xyzab' },
        'Invalid request body: axisFormat: must be one of xab, xyz',
      ],
      ['command', { command: 'G1 X1\nG1 X2' }, 'A manual command must be a single line'],
      ['command', { command: 'G1 X1*33' }, "Command contains '*', which is reserved for the checksum"],
      [
        'command',
        { command: 'N5 G1 X1' },
        'Line numbers and checksums are added by Towpath; send the command alone',
      ],
      [
        'command',
        { command: 'M110 N40' },
        'M110 is not sent by hand: Towpath numbers the lines and keeps the counter in step',
      ],
      ['command', { command: `G1 X${'1'.repeat(90)}` }, 'Command is longer than 80 characters'],
      ['command', { command: 'G1 X1 \u00e9' }, 'Command contains a character that cannot be sent'],
      ['command', { command: '  ; only a comment' }, 'Command is empty (comments are not sent)'],
      ['command', {}, 'Invalid request body: command: Field required'],
    ];
    for (const [route, body, detail] of cases) {
      expect(await b.post(route, body), `${route} ${JSON.stringify(body)}`).toEqual({
        status: 400,
        body: { detail },
      });
    }
    expect(b.fake.commands).toEqual([]);
    expect(b.machine.status().state).toBe('ready');
  });

  it('refuses manual control with 409 while a job runs or is paused; M112 in the console is the e-stop', async () => {
    const b = await bench(FIVE_AXES, { ackDelayMs: 5 });
    await b.post('connect', { port: b.pair.near });
    const gcode = Array.from({ length: 2000 }, (_, i) => `G0 X${i}`).join('\n');
    expect((await b.post('job', { gcode })).status).toBe(202);
    await b.fake.until(() => b.fake.commands.length > 5, 5000);
    const manual = [
      ['jog', { axis: 'X', step: 1, feed: 100 }],
      ['home', {}],
      ['zero', {}],
      ['position', undefined],
      ['motors-off', undefined],
      ['command', { command: 'G28' }],
    ] as const;
    const running = 'Manual control is refused while a job is running';
    for (const [route, body] of manual) {
      expect(await b.post(route, body), route).toEqual({ status: 409, body: { detail: running } });
    }
    expect((await b.post('pause')).body).toMatchObject({ state: 'paused' });
    const paused = 'Manual control is refused while a job is paused; cancel the job first';
    for (const [route, body] of [...manual, ['command', { command: 'M114' }]] as const) {
      expect(await b.post(route, body), `${route} paused`).toEqual({ status: 409, body: { detail: paused } });
    }
    // Only the job's own lines reached the controller.
    expect(b.fake.commands).toEqual(Array.from({ length: b.fake.commands.length }, (_, i) => `G0 X${i}`));

    expect((await b.post('resume')).body).toMatchObject({ state: 'streaming' });
    const stop = await b.post('command', { command: 'M112' });
    expect(stop).toEqual({ status: 200, body: { responses: [] } });
    // Written before the answer; the pty delivers it a moment later.
    await b.fake.until(() => b.fake.unframed.includes('M112'), 2000, 'M112');
    expect(b.machine.status()).toMatchObject({ state: 'error', message: 'Emergency stop' });
  });

  it('reads the position again when a job ends, once it has been read on the connection', async () => {
    const b = await bench();
    await b.post('connect', { port: b.pair.near });
    // Not read yet: a job ends without an extra line.
    await b.machine.stream({ commands: [{ command: 'G0 X1', sourceLine: 1 }], total: 1 }, b.pair.near);
    expect(b.fake.commands).toEqual(['G0 X1']);
    expect(b.machine.status().position).toBeUndefined();

    await b.post('position');
    expect(b.machine.status().position).toEqual({ x: 1, a: 0, b: 0 });
    const started = await b.post('job', { gcode: 'G0 X20 A180\nG0 B30\n' });
    expect(started.status).toBe(202);
    // Stale while the job moves the machine.
    expect((started.body.status as Record<string, unknown>).position).toBeUndefined();
    await eventually(() => b.machine.status().position !== undefined, 5000);
    expect(b.machine.status()).toMatchObject({ state: 'completed', position: { x: 20, a: 180, b: 30 } });
    expect(b.fake.commands).toEqual(['G0 X1', 'M114', 'G0 X20 A180', 'G0 B30', 'M114']);
  });

  it('puts the controller back in absolute mode before the next job when a jog was cut off after G91', async () => {
    const motion = new FakeMotion(FIVE_AXES);
    let cut = false;
    const b = await bench(FIVE_AXES, {
      // The jog's move is accepted but never acknowledged: the connection fails before its G90.
      react: (line) => {
        if (!cut && line.command.startsWith('G1 X')) {
          cut = true;
          motion.react(line);
          return { kind: 'silent' };
        }
        return motion.react(line);
      },
    });
    await b.post('connect', { port: b.pair.near });
    const jog = await b.post('jog', { axis: 'X', step: 10, feed: 100 });
    expect(jog.status).toBe(502);
    expect(jog.body.detail).toMatch(/^No response from the controller within 2 s/);
    expect(motion.relative).toBe(true);

    expect((await b.post('connect', { port: b.pair.near })).body).toMatchObject({ state: 'ready' });
    expect((await b.post('job', { gcode: 'G0 X5 A90\n' })).status).toBe(202);
    await eventually(() => b.machine.status().state === 'completed', 5000);
    expect(b.fake.commands).toEqual(['G91', 'G1 X10 F100', 'G90', 'G0 X5 A90']);
    expect(motion.position.get('X')).toBe(5);

    // G91 typed in the console is followed the same way.
    await b.post('command', { command: 'G91' });
    const stream = b.machine.stream(
      { commands: [{ command: 'G0 X1', sourceLine: 1 }], total: 1 },
      b.pair.near,
    );
    expect((await stream).status).toBe('completed');
    expect(b.fake.commands.slice(4)).toEqual(['G91', 'G90', 'G0 X1']);
    expect(motion.position.get('X')).toBe(1);
  });

  it('accepts manual control only from clients on the workstation', async () => {
    const b = await bench();
    for (const url of ['jog', 'home', 'zero', 'position', 'motors-off', 'command']) {
      const response = await b.app.inject({
        method: 'POST',
        url: `/api/machine/${url}`,
        remoteAddress: '192.168.1.20',
        headers: { 'content-type': 'application/json' },
        payload: '{"axis":"X","step":1,"feed":100}',
      });
      expect(response.statusCode, url).toBe(403);
    }
    expect(b.fake.commands).toEqual([]);
  });
});
