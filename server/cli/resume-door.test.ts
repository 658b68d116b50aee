// `towpath stream --resume-from` with a workstation running: the resumed job goes through its
// machine process's resume route (a real machine process, real HTTP on loopback, the fake Marlin on
// a real pseudo-terminal pair), so the job history names the job it continues, and the controller
// receives exactly the lead-in and then the program's tail.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MACHINE_ROUTES, type MachineProfile } from '../../engine/machine/contract.ts';
import type { JobList } from '../../engine/machine/job-record.ts';
import { prepareProgram } from '../../engine/machine/program.ts';
import { DEFAULT_QUEUE_DEPTH, resumeLeadIn, suggestCheckpoint } from '../../engine/machine/resume.ts';
import { type Checkpoint, type ProgramState, readCheckpoints } from '../../engine/plan/checkpoints.ts';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { attachFakeMarlin } from '../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../machine/testing/pty-pair.ts';
import { runNode, startNode } from '../testing/process.ts';
import { makeTempDir, startTestWorkstation } from '../testing/workstation.ts';

const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 2000, identifyIdleMs: 1000, idleTimeoutMs: 5000 };
const CLI = 'server/cli.ts';
const GCODE = join(REFERENCE_ROOT, 'conf_valid_helical', 'expected-xab.gcode');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function rig(ackDelayMs = 1) {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const onPort = await attachFakeMarlin(pair.far, { ackDelayMs });
  cleanups.push(() => onPort.close());
  const ws = await startTestWorkstation({}, { machine: { timings: TIMINGS } });
  cleanups.push(() => ws.dispose());
  // Child processes, as an operator runs it: a CLI inside this process would share the
  // workstation's process id, and its leaving would count as the workstation's.
  const env = { TOWPATH_DATA_DIR: ws.dataDir };
  const cli = (args: string[]) => runNode(CLI, args, env);
  const jobs = async () => {
    const response = await fetch(`${ws.machine.url}${MACHINE_ROUTES.jobs}?limit=10`);
    return ((await response.json()) as JobList).jobs;
  };
  return { pair, fake: onPort.fake, ws, env, cli, jobs };
}

/** The reference program's first circuits (four checkpoints) in a file: a run kept short. */
async function firstCircuits() {
  const text = (await readFile(GCODE, 'utf8')).split('\n').slice(0, 3500).join('\n');
  const file = join(await makeTempDir(), 'first-circuits.gcode');
  await writeFile(file, text);
  return { text, file };
}

/** Resume from the suggested checkpoint, the tow still attached. */
const RESUME_AUTO = ['--resume-from', 'auto', '--tow-attached'];

/** The lead-in the door plans with the tow attached, from where the program stood at `at`. */
const attachedLeadIn = (checkpoint: Checkpoint, at: ProgramState) =>
  resumeLeadIn(checkpoint, {
    from: { x: at.x, a: at.a, b: at.b, rezero: at.rezero },
    towAttached: true,
    pause: false,
    axisFormat: 'xab',
  });

describe('towpath stream --resume-from through a running workstation', () => {
  it('connects, resumes through the door, and the history names the job it continues', async () => {
    const { pair, fake, ws, env, cli, jobs } = await rig();
    const { text, file } = await firstCircuits();

    // A job stopped part-way through, its connection closed since: only the history knows how far.
    const streaming = startNode(CLI, ['stream', file, '--port', pair.near], env);
    await fake.until(() => fake.commands.length >= 2600, 20_000);
    await ws.machine.cancel();
    expect((await streaming.finished).code).toBe(130);
    const [stopped] = await jobs();
    if (!stopped) throw new Error('the stopped job is in the history');
    expect(stopped).toMatchObject({ outcome: 'cancelled', program: 'first-circuits.gcode', continues: null });
    // The workstation's mirror follows the machine's events, which may trail the CLI's exit.
    await expect.poll(() => ws.machine.status().state).toBe('idle');

    const sentBefore = fake.commands.length;
    const resume = await cli([
      'stream',
      file,
      '--port',
      pair.near,
      '--resume-from',
      'auto',
      '--tow-attached',
      '--json',
    ]);
    expect(resume.stderr).toMatch(/^Resuming from checkpoint \d+: /);
    expect(resume.code).toBe(0);

    const { checkpoints, at } = readCheckpoints(text, { stateAfterCommand: stopped.acknowledged });
    const suggested = suggestCheckpoint(checkpoints, stopped.acknowledged, DEFAULT_QUEUE_DEPTH);
    if (!suggested || !at) throw new Error('a checkpoint lies behind the stopped job');
    // Not the first checkpoint: the lead-in has a real way back to make.
    expect(suggested.index).toBeGreaterThan(1);
    expect(resume.stderr).toContain(`Resuming from checkpoint ${suggested.index}: `);
    const leadIn = attachedLeadIn(suggested, at);
    const all = prepareProgram(text).commands.map((c) => c.command);
    const tail = all.slice(suggested.command);
    expect(fake.commands.slice(sentBefore)).toEqual([...leadIn, ...tail]);
    expect(JSON.parse(resume.stdout)).toMatchObject({
      status: 'completed',
      commands: leadIn.length + tail.length,
      total: leadIn.length + tail.length,
    });

    const [resumed] = await jobs();
    expect(resumed).toMatchObject({
      continues: stopped.id,
      outcome: 'completed',
      program: 'first-circuits.gcode',
      total: leadIn.length + tail.length,
      acknowledged: leadIn.length + tail.length,
    });
    // The connection the resume opened is closed again, as after a plain job.
    await expect.poll(() => ws.machine.status().state).toBe('idle');
  }, 60_000);

  it('refuses bad resume input as without a workstation: nothing sent, the history as it was', async () => {
    const { pair, fake, ws, cli, jobs } = await rig();
    // The last job completed: there is nothing to continue, so the operator must give the count.
    await ws.machine.connect(pair.near, 250000);
    await ws.machine.startJob({ gcode: 'G0 X1 A1\nG0 X2 A2' });
    await expect.poll(() => ws.machine.status().state).toBe('completed');
    await ws.machine.disconnect();
    const before = await jobs();
    const sent = fake.commands.length;

    const cases: [string[], RegExp][] = [
      [['--resume-from', 'auto'], /--acknowledged <n>/],
      [['--resume-from', '999', '--acknowledged', '900'], /a checkpoint number from 1 to \d+/],
      [['--resume-from', 'auto', '--acknowledged', '10'], /no checkpoint is certainly behind the machine/],
    ];
    for (const [more, message] of cases) {
      const refused = await cli(['stream', GCODE, '--port', pair.near, ...more]);
      expect(refused.code, more.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(message);
      expect(refused.stderr).toContain('Usage: towpath stream');
    }
    expect(fake.commands.length).toBe(sent);
    expect(await jobs()).toEqual(before);
    expect(ws.machine.status().state).toBe('idle');
  }, 60_000);

  it('follows a resumed job to its cancel on Ctrl-C, and refuses one the door cannot place', async () => {
    const { pair, fake, ws, env, cli, jobs } = await rig();
    const { file } = await firstCircuits();
    const args = ['stream', file, '--port', pair.near, '--resume-from', 'auto', '--tow-attached'];

    // Another program stopped last: the door finds no stopped job of this one, and says so.
    await ws.machine.connect(pair.near, 250000);
    await ws.machine.startJob({ gcode: Array.from({ length: 3000 }, (_, i) => `G0 X${i % 100}`).join('\n') });
    await fake.until(() => fake.commands.length >= 1500, 20_000);
    await ws.machine.cancel();
    await expect.poll(() => ws.machine.status().state).toBe('cancelled');
    await ws.machine.disconnect();
    const sent = fake.commands.length;
    const other = await cli(args);
    expect(other).toMatchObject({ code: 1 });
    expect(other.stderr).toMatch(/No stopped job is known here to resume/);
    expect(fake.commands.length).toBe(sent);
    await expect.poll(() => ws.machine.status().state).toBe('idle');

    // Given the count, it resumes; Ctrl-C without a terminal cancels at the next line boundary.
    const before = (await jobs()).length;
    const running = startNode(CLI, [...args, '--acknowledged', '2600'], env);
    await fake.until(() => fake.commands.length >= sent + 100, 20_000);
    running.child.kill('SIGINT');
    const ended = await running.finished;
    expect(ended.code).toBe(130);
    const [resumed, ...rest] = await jobs();
    expect(rest).toHaveLength(before);
    // No stopped job of this program is known, so the resumed one names none.
    expect(resumed).toMatchObject({ outcome: 'cancelled', continues: null, program: null });
    const count = (n: number) => n.toLocaleString('en');
    // The outcome the CLI reports is the job's own, as the machine process recorded it.
    expect(ended.stdout).toBe(
      `Cancelled after ${count(resumed?.acknowledged ?? -1)} of ${count(resumed?.total ?? -1)} commands\n`,
    );
    await expect.poll(() => ws.machine.status().state).toBe('idle');
  }, 60_000);

  it('reports an e-stop of the resumed job as a plain job does, and the history keeps which it continued', async () => {
    const { pair, fake, ws, env, jobs } = await rig();
    const { file } = await firstCircuits();
    const first = startNode(CLI, ['stream', file, '--port', pair.near], env);
    await fake.until(() => fake.commands.length >= 2600, 20_000);
    await ws.machine.cancel();
    expect((await first.finished).code).toBe(130);
    const [stopped] = await jobs();
    await expect.poll(() => ws.machine.status().state).toBe('idle');

    const sent = fake.commands.length;
    const resuming = startNode(
      CLI,
      ['stream', file, '--port', pair.near, '--resume-from', 'auto', '--tow-attached'],
      env,
    );
    await fake.until(() => fake.commands.length >= sent + 100, 20_000);
    await ws.machine.emergencyStop();
    const ended = await resuming.finished;
    expect(ended.code).toBe(3);
    expect(ended.stderr).toMatch(/Stopped after [\d,]+ of [\d,]+ commands\.\ntowpath: Emergency stop\n$/);
    const [resumed] = await jobs();
    expect(resumed).toMatchObject({ outcome: 'e-stopped', continues: stopped?.id });
  }, 60_000);

  it("counts back by the connected profile's queue depth, else the stopped job's, as the door does", async () => {
    const { pair, fake, ws, cli, jobs } = await rig(3);
    // The reference program's first two checkpoints (commands 2 and 4) and part of the first circuit.
    const text = (await readFile(GCODE, 'utf8')).split('\n').slice(0, 300).join('\n');
    const file = join(await makeTempDir(), 'first-circuit.gcode');
    await writeFile(file, text);
    const all = prepareProgram(text).commands.map((c) => c.command);
    const { checkpoints } = readCheckpoints(text);
    const door = async (path: string, body: unknown) => {
      const response = await fetch(new URL(path, ws.machine.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, path).toBeLessThan(300);
      return (await response.json()) as Record<string, unknown>;
    };
    const profile = async (name: string, queueDepth: number) =>
      (
        (await door(MACHINE_ROUTES.profiles, {
          name,
          port: pair.near,
          queueDepth,
        })) as unknown as MachineProfile
      ).id;
    const deep = await profile('Deep queue', 500);
    const shallow = await profile('Shallow queue', 5);
    const dryRun = (more: string[] = []) =>
      cli(['stream', file, '--dry-run', '--json', ...RESUME_AUTO, ...more]);

    // A job stopped on a connection made with the deep profile, past the second checkpoint by more
    // than 20 commands and by fewer than 500: counting back by 20 would find it, by 500 nothing.
    await door(MACHINE_ROUTES.connect, { profileId: deep });
    await ws.machine.startJob({ gcode: text });
    await fake.until(() => fake.commands.length >= 60, 20_000);
    await ws.machine.cancel();
    await expect.poll(() => ws.machine.status().state).toBe('cancelled');
    const [stopped] = await jobs();
    if (!stopped) throw new Error('the stopped job is in the history');
    expect(stopped).toMatchObject({ outcome: 'cancelled', profile: 'Deep queue', queueDepth: 500 });
    expect(suggestCheckpoint(checkpoints, stopped.acknowledged, DEFAULT_QUEUE_DEPTH)?.index).toBe(2);
    expect(suggestCheckpoint(checkpoints, stopped.acknowledged, 500)).toBeUndefined();
    const none = `no checkpoint is certainly behind the machine after ${stopped.acknowledged} acknowledged commands (queue depth 500)`;
    // Still connected with the profile; then only the history's record of the job says which depth.
    const whileConnected = await dryRun();
    expect([whileConnected.code, whileConnected.stderr]).toEqual([2, expect.stringContaining(none)]);
    await ws.machine.disconnect();
    await expect.poll(() => ws.machine.status().state).toBe('idle');
    const fromHistory = await dryRun();
    expect([fromHistory.code, fromHistory.stderr]).toEqual([2, expect.stringContaining(none)]);
    // --queue-depth still decides when given.
    const given = await dryRun(['--queue-depth', '20']);
    expect([given.code, given.stderr]).toEqual([0, expect.stringMatching(/^Resuming from checkpoint 2: /)]);

    // Connected with the shallow profile, 12 acknowledged commands leave the second checkpoint
    // certainly behind (12 - 5 >= 4) where 20 would leave none: the job resumes from it.
    await door(MACHINE_ROUTES.connect, { profileId: shallow });
    const second = checkpoints[1];
    if (!second) throw new Error('the program has two checkpoints');
    expect(suggestCheckpoint(checkpoints, 12, DEFAULT_QUEUE_DEPTH)).toBeUndefined();
    expect(suggestCheckpoint(checkpoints, 12, 5)).toBe(second);
    const sent = fake.commands.length;
    const resumed = await cli(['stream', file, '--port', pair.near, '--acknowledged', '12', ...RESUME_AUTO]);
    expect([resumed.code, resumed.stderr]).toEqual([
      0,
      expect.stringMatching(/^Resuming from checkpoint 2: /),
    ]);
    const { at } = readCheckpoints(text, { stateAfterCommand: 12 });
    if (!at) throw new Error('the program has 12 commands');
    const leadIn = attachedLeadIn(second, at);
    expect(fake.commands.slice(sent)).toEqual([...leadIn, ...all.slice(second.command)]);
    expect((await jobs())[0]).toMatchObject({ outcome: 'completed', continues: stopped.id, queueDepth: 5 });
  }, 60_000);
});
