// Live /stream/ runs over a real pseudo-terminal pair with the scripted Marlin on the far end.
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeMarlinOptions } from '../machine/testing/fake-marlin.ts';
import { attachFakeMarlin } from '../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../machine/testing/pty-pair.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 1000, identifyIdleMs: 1000, idleTimeoutMs: 2000 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function rig(ackDelayMs = 0, react?: FakeMarlinOptions['react']) {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const onPort = await attachFakeMarlin(pair.far, { ackDelayMs, ...(react ? { react } : {}) });
  cleanups.push(() => onPort.close());
  const ws: TestWorkstation = await startTestWorkstation({}, { machine: { timings: TIMINGS } });
  cleanups.push(() => ws.dispose());
  return { pair, fake: onPort.fake, ws };
}

function program(lines: number): string {
  const out = ['; Parameters {"mandrel":{"diameter":70}}', 'G0 F9000'];
  for (let i = 1; i < lines; i++) out.push(`G0 X${i} A${i * 3} B0`);
  return `${out.join('\n')}\n`;
}

const stream = (ws: TestWorkstation, body: unknown) =>
  fetch(`${ws.urls.winding}/stream/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, body: await response.json() }));

describe('live /stream/', () => {
  it('streams every command through the machine controller and disconnects afterwards', async () => {
    const { pair, fake, ws } = await rig();
    const result = await stream(ws, { gcode: program(50), port: pair.near, dry_run: false });
    expect(result).toEqual({
      status: 200,
      body: { commands_streamed: 50, total_commands: 50, dry_run: false },
    });
    expect(fake.commands).toHaveLength(50);
    expect(fake.commands[0]).toBe('G0 F9000');
    expect(ws.machine.status().state).toBe('idle');
  });

  it('answers 409 while a job runs and when connected to another port', async () => {
    const { pair, ws } = await rig(5);
    const first = stream(ws, { gcode: program(300), port: pair.near, dry_run: false });
    await expect.poll(() => ws.machine.status().state, { timeout: 5000 }).toBe('streaming');
    expect(await stream(ws, { gcode: program(3), port: pair.near, dry_run: false })).toEqual({
      status: 409,
      body: { detail: 'Machine is busy with another job' },
    });
    // A dry run never touches the machine, so it is fine meanwhile.
    expect((await stream(ws, { gcode: program(3) })).status).toBe(200);
    expect((await first).body).toEqual({ commands_streamed: 300, total_commands: 300, dry_run: false });

    await ws.machine.connect(pair.near, 250000);
    expect(await stream(ws, { gcode: program(3), port: '/dev/ttyOTHER0', dry_run: false })).toEqual({
      status: 409,
      body: { detail: `Machine is connected to ${pair.near}; disconnect it first` },
    });
    // Connected to the same port: the job uses that connection and leaves it open.
    expect((await stream(ws, { gcode: program(3), port: pair.near, dry_run: false })).status).toBe(200);
    expect(ws.machine.status().state).toBe('completed');
  });

  it('answers 502 when the port goes away mid-job', async () => {
    const { pair, ws } = await rig(5);
    const running = stream(ws, { gcode: program(2000), port: pair.near, dry_run: false });
    await expect.poll(() => ws.machine.status().state, { timeout: 5000 }).toBe('streaming');
    await pair.vanish();
    const result = await running;
    expect(result.status).toBe(502);
    expect(result.body.detail).toMatch(/^Streaming failed: Serial port .* closed: /);
  });

  it("answers with the idle-timeout error when the controller drops a line and only says 'wait'", async () => {
    const { pair, fake, ws } = await rig(0, ({ n, attempt }) =>
      n === 5 && attempt === 1 ? { kind: 'stall', everyMs: 100 } : undefined,
    );
    const result = await stream(ws, { gcode: program(20), port: pair.near, dry_run: false });
    expect(result.status).toBe(502);
    expect(result.body.detail).toBe(
      'Streaming failed: No response from the controller within 2 s (waiting for line 5)',
    );
    expect(fake.lines.filter((line) => line.startsWith('N5 '))).toHaveLength(1);
    expect(ws.machine.status().state).toBe('error');
  });

  it("ends the request when the panel's cancel is repeated while a line is never acknowledged", async () => {
    const { pair, ws } = await rig(0, ({ n, attempt }) =>
      n === 5 && attempt === 1 ? { kind: 'stall', everyMs: 100, text: 'busy: processing' } : undefined,
    );
    const running = stream(ws, { gcode: program(20), port: pair.near, dry_run: false });
    await expect.poll(() => ws.machine.status().job?.sent, { timeout: 5000 }).toBe(5);
    const cancel = () =>
      fetch(`${ws.urls.lan}/api/machine/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }).then((response) => response.status);
    expect(await cancel()).toBe(200);
    expect(ws.machine.status().state).toBe('streaming');
    expect(await cancel()).toBe(200);
    const result = await running;
    expect(result).toEqual({
      status: 502,
      body: { detail: 'Streaming failed: Aborted while line 5 was in flight' },
    });
  });
});
