// Following the running job, over real HTTP on loopback and a real pseudo-terminal pair: the
// status names the job's program whoever started it, the feed override reaches the controller as
// its exact line while a job streams, a program without the planner's header streams like any
// other, and after an e-stop the reset route brings the controller back with M999.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { MachineStatus } from '../../../engine/machine/types.ts';
import { eventually } from '../../../engine/testing/eventually.ts';
import { startDoorBench } from '../testing/door-bench.ts';
import type { FakeMarlinOptions } from '../testing/fake-marlin.ts';

const benches: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const dispose of benches.splice(0).reverse()) await dispose();
});

async function bench(fake: Omit<FakeMarlinOptions, 'send'> = {}) {
  const door = await startDoorBench(fake);
  benches.push(door.dispose);
  const post = async (path: string, body?: unknown) => {
    const { status, body: answer } = await door.call('POST', `/api/machine/${path}`, body);
    return { status, body: answer };
  };
  const status = async () => (await door.call('GET', '/api/machine/status')).body as unknown as MachineStatus;
  const jobProgram = () => door.call('GET', '/api/machine/job/program');
  return { ...door, post, status, jobProgram };
}

/** A Towpath-looking program: numbered moves with a layer comment, `count` commands. */
function program(count: number): string {
  const lines = ['; Layer 1 of 1: helical 55°'];
  for (let i = 1; i <= count; i++) lines.push(`G1 X${i} A${i * 2} F6000`);
  return `${lines.join('\n')}\n`;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the running job in the status', () => {
  it('names the program of a job started over the machine door, and serves its text', async () => {
    const b = await bench({ ackDelayMs: 2 });
    await b.post('connect', { port: b.pair.near });
    const gcode = program(150);
    const started = await b.post('job?name=cylinder.gcode', { gcode });
    expect(started.status).toBe(202);
    expect((started.body.status as MachineStatus).program).toEqual({
      name: 'cylinder.gcode',
      sha256: sha256(gcode),
      total: 150,
    });
    const served = await b.jobProgram();
    expect(served.status).toBe(200);
    expect(served.headers.get('x-job-sha256')).toBe(sha256(gcode));
    expect(served.text).toBe(gcode);
    await eventually(async () => (await b.status()).state === 'completed', 15_000);
    // After the job, the status still says which program its progress belongs to.
    expect((await b.status()).program?.name).toBe('cylinder.gcode');
  });

  it('names a job from /stream (the CLI and the winding door) the same way', async () => {
    const b = await bench({ ackDelayMs: 2 });
    const gcode = program(120);
    const streamed = b.post('stream?name=from-cli.gcode', { gcode, port: b.pair.near });
    await eventually(async () => (await b.status()).state === 'streaming', 15_000);
    expect((await b.status()).program).toEqual({ name: 'from-cli.gcode', sha256: sha256(gcode), total: 120 });
    expect((await b.jobProgram()).text).toBe(gcode);
    expect((await streamed).body).toMatchObject({ status: 'completed', acknowledged: 120 });
  });

  it('answers 404 for the job program before any job ran', async () => {
    const b = await bench();
    await b.post('connect', { port: b.pair.near });
    const response = await b.jobProgram();
    expect(response.status).toBe(404);
    expect(response.body.detail).toMatch(/No job program/);
    expect((await b.status()).program).toBeUndefined();
  });
});

describe('any G-code', () => {
  it('streams a program without the planner header, its comments left out', async () => {
    const b = await bench();
    await b.post('connect', { port: b.pair.near });
    const gcode = '; from another CAM\nG21\nG90\nG0 X0 Y0\nG1 X120 Y720 F3000 ; one pass\nG1 X0 Y1440\nM2\n';
    const started = await b.post('job?name=other.nc', { gcode });
    expect(started.status).toBe(202);
    await eventually(async () => (await b.status()).state === 'completed', 15_000);
    expect(b.fake.commands).toEqual(['G21', 'G90', 'G0 X0 Y0', 'G1 X120 Y720 F3000', 'G1 X0 Y1440', 'M2']);
  });
});

describe('feed override', () => {
  it('reaches the controller as M220 S<percent> between the job lines, none lost', async () => {
    const b = await bench({ ackDelayMs: 4 });
    await b.post('connect', { port: b.pair.near });
    const gcode = program(300);
    await b.post('job', { gcode });
    await eventually(() => b.fake.commands.length > 20);
    const answer = await b.post('feed', { percent: 80 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ feedOverride: 80 });
    expect((answer.body as unknown as MachineStatus).state).toMatch(/streaming|completed/);
    await eventually(async () => (await b.status()).state === 'completed', 15_000);

    const at = b.fake.commands.indexOf('M220 S80');
    expect(at).toBeGreaterThan(20);
    expect(at).toBeLessThan(300);
    const jobLines = b.fake.commands.filter((command) => command !== 'M220 S80');
    expect(jobLines).toEqual(gcode.trim().split('\n').slice(1));
    expect((await b.status()).feedOverride).toBe(80);
  });

  it('refuses a percentage out of range before anything is sent', async () => {
    const b = await bench();
    await b.post('connect', { port: b.pair.near });
    const before = b.fake.lines.length;
    expect(await b.post('feed', { percent: 5 })).toEqual({
      status: 400,
      body: { detail: 'Invalid request body: percent: must be at least 10' },
    });
    expect(await b.post('feed', { percent: 'fast' })).toEqual({
      status: 400,
      body: { detail: 'Invalid request body: percent: must be a number' },
    });
    expect(b.fake.lines.length).toBe(before);
  });
});

describe('reset after an e-stop', () => {
  it('opens the port again with M999 first, and a job runs after it', async () => {
    const b = await bench({ ackDelayMs: 4, takesM999: true });
    await b.post('connect', { port: b.pair.near });
    await b.post('job', { gcode: program(400) });
    await eventually(() => b.fake.commands.length > 10);
    const stopped = await b.post('estop');
    expect(stopped.body.sent).toBe(true);
    await eventually(async () => (await b.status()).state === 'error', 15_000);

    const reset = await b.post('reset');
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ state: 'ready', port: b.pair.near });
    expect(b.fake.unframed).toContain('M999');
    expect(b.fake.unframed.indexOf('M999')).toBeGreaterThan(b.fake.unframed.indexOf('M112'));

    const from = b.fake.commands.length;
    await b.post('job', { gcode: program(5) });
    await eventually(async () => (await b.status()).state === 'completed', 15_000);
    expect(b.fake.commands.slice(from)).toEqual(program(5).trim().split('\n').slice(1));
  });

  it('says the controller stays halted when neither M999 nor a fresh connection answers', async () => {
    const b = await bench({ ackDelayMs: 4 });
    await b.post('connect', { port: b.pair.near });
    await b.post('job', { gcode: program(400) });
    await eventually(() => b.fake.commands.length > 10);
    await b.post('estop');
    await eventually(async () => (await b.status()).state === 'error', 15_000);
    const reset = await b.post('reset');
    expect(reset.status).toBe(502);
    expect(reset.body.detail).toMatch(/^The controller answered neither M999 nor a fresh connection/);
    expect(b.fake.lines).toContain('M999');
  });

  it('after a failed connect, tries the port asked for again, not an older one', async () => {
    const b = await bench();
    await b.post('connect', { port: b.pair.near });
    await b.post('disconnect');
    const missing = `${b.pair.near}-gone`;
    expect((await b.post('connect', { port: missing })).status).toBe(502);
    const reset = await b.post('reset');
    expect(reset.status).toBe(502);
    expect(reset.body.detail).toMatch(new RegExp(`^Could not open serial port ${missing}`));
  });

  it('has nothing to reset before the first connection', async () => {
    const b = await bench();
    expect(await b.post('reset')).toEqual({
      status: 409,
      body: { detail: 'Nothing to reset: the machine has not been connected' },
    });
  });
});
