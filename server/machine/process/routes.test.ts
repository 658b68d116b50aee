// /api/machine/* over real HTTP on loopback, with the controller on an in-memory link to the fake
// Marlin (the serial path itself is covered by serial.test.ts).
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLink } from '../../../engine/machine/transport.ts';
import { createHttpApp } from '../../http/app.ts';
import { makeTempDir } from '../../testing/workstation.ts';
import { FakeMarlin, type FakeMarlinOptions } from '../testing/fake-marlin.ts';
import { MachineController } from './controller.ts';
import { machineRoutes } from './routes.ts';

const apps: FastifyInstance[] = [];
const machines: MachineController[] = [];
afterEach(async () => {
  for (const machine of machines.splice(0)) await machine.close().catch(() => {});
  for (const app of apps.splice(0)) await app.close();
});

async function serve(
  options: { allowRemote?: boolean; fake?: Omit<FakeMarlinOptions, 'send'>; allowedRoots?: string[] } = {},
) {
  const link = createMemoryLink();
  const fake = new FakeMarlin({ ...options.fake, send: (text) => link.device.send(text) });
  link.device.onLine((line) => fake.receive(`${line}\n`));
  const opened: string[] = [];
  const machine = new MachineController({
    open: async (port) => {
      if (port === '/dev/missing') throw new Error('No such file or directory');
      opened.push(port);
      return link.transport;
    },
    timings: { bootIdleMs: 10 },
  });
  machines.push(machine);
  const app = createHttpApp(pino({ level: 'silent' }), 'lan');
  await app.register(machineRoutes, {
    machine,
    allowRemote: () => options.allowRemote ?? false,
    allowedRoots: options.allowedRoots ?? [tmpdir()],
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  apps.push(app);
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const post = (path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  return { app, base, post, machine, fake, opened };
}

// Event payloads are checked with toMatchObject, so a loose record type is enough here.
type EventData = Record<string, unknown> & { state?: string };
interface SseEvent {
  event: string;
  data: EventData;
  id?: number;
}

/** Reads server-sent events until `stop` says so; returns them parsed. */
async function readEvents(url: string, stop: (events: SseEvent[]) => boolean) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  const deadline = setTimeout(() => controller.abort(), 5000);
  try {
    while (!stop(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = Object.fromEntries(
          block
            .split('\n')
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
        );
        if (fields.event)
          events.push({
            event: fields.event,
            data: JSON.parse(fields.data ?? 'null') as EventData,
            ...(fields.id ? { id: Number(fields.id) } : {}),
          });
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    clearTimeout(deadline);
    controller.abort();
  }
  return events;
}

describe('/api/machine/*', () => {
  it('answers only loopback clients unless remote control is on', async () => {
    const closed = await serve();
    const routes: [string, string][] = [
      ['GET', '/api/machine/status'],
      ['GET', '/api/machine/events'],
      ['GET', '/api/machine/ports'],
      ['POST', '/api/machine/estop'],
      ['POST', '/api/machine/connect'],
      ['POST', '/api/machine/job'],
    ];
    for (const [method, url] of routes) {
      const response = await closed.app.inject({
        method: method as 'GET',
        url,
        remoteAddress: '192.168.1.20',
      });
      expect(response.statusCode, url).toBe(403);
      expect(response.json()).toEqual({
        detail: 'This route accepts only clients on the workstation itself.',
      });
    }
    // Refused before the body is read: what a LAN client sends does not matter.
    const garbled = await closed.app.inject({
      method: 'POST',
      url: '/api/machine/job',
      remoteAddress: '192.168.1.20',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(garbled.statusCode).toBe(403);
    expect(closed.machine.status().state).toBe('idle');
    const local = await closed.app.inject({
      method: 'GET',
      url: '/api/machine/status',
      remoteAddress: '127.0.0.1',
    });
    expect(local.statusCode).toBe(200);

    const open = await serve({ allowRemote: true });
    const remote = await open.app.inject({
      method: 'GET',
      url: '/api/machine/status',
      remoteAddress: '192.168.1.20',
    });
    expect(remote.statusCode).toBe(200);
    expect(remote.json()).toMatchObject({ state: 'idle', port: null, job: null });
  });

  it('connects, runs a job with progress on server-sent events, and refuses a second job with 409', async () => {
    const s = await serve({ fake: { ackDelayMs: 2 } });
    const connected = await s.post('/api/machine/connect', { port: '/dev/ttyFAKE', baudRate: 115200 });
    expect(connected.status).toBe(200);
    expect(await connected.json()).toMatchObject({ state: 'ready', port: '/dev/ttyFAKE', baudRate: 115200 });

    const gcode = Array.from({ length: 150 }, (_, i) => `G0 X${i} ; move ${i}`).join('\n');
    const eventsDone = readEvents(`${s.base}/api/machine/events`, (events) =>
      events.some((e) => e.event === 'state' && e.data.state === 'completed'),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [first, second] = await Promise.all([
      s.post('/api/machine/job', { gcode }),
      s.post('/api/machine/job', { gcode }),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([202, 409]);
    const refused = first.status === 409 ? first : second;
    expect(await refused.json()).toEqual({ detail: 'Machine is busy with another job' });
    const accepted = first.status === 202 ? first : second;
    expect(await accepted.json()).toMatchObject({ total: 150, status: { state: 'streaming' } });

    const events = await eventsDone;
    expect(events[0]).toMatchObject({ event: 'status', data: { state: 'ready' } });
    const progress = events.filter((e) => e.event === 'progress');
    // At most 10 updates a second: far fewer progress events than acknowledged lines.
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.length).toBeLessThan(150);
    expect(progress.at(-1)?.data).toMatchObject({
      acknowledged: 150,
      total: 150,
      line: 150,
      command: 'G0 X149',
    });
    expect(events.find((e) => e.event === 'complete')?.data).toMatchObject({ acknowledged: 150, total: 150 });
    const ids = events.flatMap((e) => (e.id === undefined ? [] : [e.id]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(s.fake.commands).toEqual(Array.from({ length: 150 }, (_, i) => `G0 X${i}`));
  });

  it('maps refusals to 400, 409 and 502 with the message as detail', async () => {
    const s = await serve({ fake: { ackDelayMs: 2 } });
    const detail = async (response: Response) => [response.status, (await response.json()).detail];
    expect(await detail(await s.post('/api/machine/connect', {}))).toEqual([
      400,
      'Invalid request body: port: Field required',
    ]);
    expect(await detail(await s.post('/api/machine/connect', { port: '/dev/missing' }))).toEqual([
      502,
      'Could not open serial port /dev/missing: No such file or directory',
    ]);
    expect(await detail(await s.post('/api/machine/command', { command: 'M114' }))).toEqual([
      409,
      'Machine is not connected',
    ]);
    expect(await detail(await s.post('/api/machine/pause'))).toEqual([409, 'No job is running']);
    expect(await detail(await s.post('/api/machine/job', { gcode: 'G0\nG1 X1*2' }))).toEqual([
      400,
      "Line 2: command contains '*', which is reserved for the checksum",
    ]);
    expect(await detail(await s.post('/api/machine/job', { path: 'relative.gcode' }))).toEqual([
      400,
      "Path must be absolute: 'relative.gcode'",
    ]);
    const estop = await s.post('/api/machine/estop');
    expect(estop.status).toBe(200);
    expect(await estop.json()).toMatchObject({ sent: false });
  });

  it('sends manual commands, pauses, resumes, cancels and stops on e-stop', async () => {
    const s = await serve({ fake: { ackDelayMs: 5 } });
    await s.post('/api/machine/connect', { port: '/dev/ttyFAKE' });
    const manual = await s.post('/api/machine/command', { command: 'G28 ; home' });
    expect(await manual.json()).toEqual({ responses: ['ok'] });
    const gcode = Array.from({ length: 2000 }, (_, i) => `G0 X${i}`).join('\n');
    expect((await s.post('/api/machine/job', { gcode })).status).toBe(202);
    await s.fake.until(() => s.fake.commands.length > 10, 5000);
    expect(await (await s.post('/api/machine/pause')).json()).toMatchObject({ state: 'paused' });
    expect(await (await s.post('/api/machine/resume')).json()).toMatchObject({ state: 'streaming' });
    const stopped = await s.post('/api/machine/estop');
    expect(await stopped.json()).toMatchObject({
      sent: true,
      status: { state: 'error', message: 'Emergency stop' },
    });
    expect(s.fake.estopAt).toBeDefined();
    // The console's move is followed by a position read before the job's lines.
    expect(s.fake.commands).toEqual([
      'G28',
      'M114',
      ...Array.from({ length: s.fake.commands.length - 2 }, (_, i) => `G0 X${i}`),
    ]);
  });

  it('stops on e-stop whatever the body, even an empty one sent as JSON', async () => {
    const s = await serve({ fake: { ackDelayMs: 5 } });
    await s.post('/api/machine/connect', { port: '/dev/ttyFAKE' });
    const gcode = Array.from({ length: 2000 }, (_, i) => `G0 X${i}`).join('\n');
    expect((await s.post('/api/machine/job', { gcode })).status).toBe(202);
    await s.fake.until(() => s.fake.commands.length > 5, 5000);
    // A LAN client is refused before the e-stop hook runs: the job goes on.
    const remote = await s.app.inject({
      method: 'POST',
      url: '/api/machine/estop',
      remoteAddress: '10.0.0.7',
    });
    expect(remote.statusCode).toBe(403);
    expect(s.machine.status().state).toBe('streaming');
    expect(s.fake.unframed).not.toContain('M112');
    const stopped = await fetch(`${s.base}/api/machine/estop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toMatchObject({
      sent: true,
      status: { state: 'error', message: 'Emergency stop' },
    });
    expect(s.fake.unframed).toContain('M112');
    const garbled = await fetch(`${s.base}/api/machine/estop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    // Nothing left to stop, but the request is still answered as an e-stop, not as a bad body.
    expect(garbled.status).toBe(200);
    expect(await garbled.json()).toMatchObject({ sent: false });
  });

  it('runs path jobs only from inside the allowed roots', async () => {
    const root = await makeTempDir('towpath-machine-roots-');
    const inside = join(root, 'allowed');
    await mkdir(inside);
    const file = join(inside, 'job.gcode');
    await writeFile(file, '; job\nG0 X1\nG0 X2\n');
    const outside = join(root, 'elsewhere.gcode');
    await writeFile(outside, 'G0 X9\n');
    const s = await serve({ fake: { ackDelayMs: 1 }, allowedRoots: [inside] });
    await s.post('/api/machine/connect', { port: '/dev/ttyFAKE' });

    const refused = await s.post('/api/machine/job', { path: outside });
    expect(refused.status).toBe(403);
    expect((await refused.json()).detail).toBe(
      `Path '${outside}' is outside the allowed roots. Configure WINDING_ALLOWED_ROOTS to permit additional roots. Current roots: ${await realpath(inside)}`,
    );
    // `..` cannot climb out of a root either.
    const climbing = await s.post('/api/machine/job', { path: join(inside, '..', 'elsewhere.gcode') });
    expect(climbing.status).toBe(403);
    const missing = await s.post('/api/machine/job', { path: join(inside, 'missing.gcode') });
    expect([missing.status, (await missing.json()).detail]).toEqual([
      400,
      `No file found at ${join(inside, 'missing.gcode')}`,
    ]);
    expect(s.fake.commands).toEqual([]);

    const accepted = await s.post('/api/machine/job', { path: file });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toMatchObject({ total: 2 });
    await s.fake.until(() => s.fake.commands.length === 2, 5000);
    expect(s.fake.commands).toEqual(['G0 X1', 'G0 X2']);
  });
});
