// `towpath checkpoints` and `towpath stream --resume-from` on real files and, for streaming, the
// fake Marlin on a real pseudo-terminal pair: the controller receives exactly the lead-in and then
// the program's tail from the checkpoint's line.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareProgram } from '../../engine/machine/program.ts';
import {
  DEFAULT_QUEUE_DEPTH,
  REATTACH_PAUSE,
  resumeLeadIn,
  suggestCheckpoint,
} from '../../engine/machine/resume.ts';
import { describeCheckpoint, readCheckpoints } from '../../engine/plan/checkpoints.ts';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { attachFakeMarlin } from '../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../machine/testing/pty-pair.ts';
import { type RecordingIo, recordingIo } from '../testing/cli-io.ts';
import { startNode } from '../testing/process.ts';
import { makeTempDir } from '../testing/workstation.ts';
import { main } from './main.ts';
import type { StreamIo } from './stream.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const CASE = join(REFERENCE_ROOT, 'conf_valid_helical');
const GCODE = join(CASE, 'expected-xab.gcode');

async function testIo(): Promise<StreamIo & RecordingIo> {
  // A data dir of its own: no workstation is running there to ask about the last job.
  const dataDir = await makeTempDir();
  return {
    ...recordingIo(),
    env: { TOWPATH_DATA_DIR: dataDir },
    prompt: null,
    machine: { timings: { bootIdleMs: 50 } },
  };
}

const out = (io: RecordingIo) => io.out.join('');
const err = (io: RecordingIo) => io.err.join('');

describe('towpath checkpoints', () => {
  it('lists the same checkpoints for the .wind and the G-code it plans to, as a table and as JSON', async () => {
    const fromGcode = await testIo();
    expect(await main(['checkpoints', GCODE, '--json'], fromGcode)).toBe(0);
    const fromWind = await testIo();
    expect(await main(['checkpoints', join(CASE, 'input.wind'), '--json'], fromWind)).toBe(0);
    const body = JSON.parse(out(fromGcode));
    expect(JSON.parse(out(fromWind))).toEqual(body);
    const expected = readCheckpoints(await readFile(GCODE, 'utf8'));
    expect(body.checkpoints.length).toBe(expected.checkpoints.length);
    const second = expected.checkpoints[1];
    if (!second) throw new Error('the reference program has two checkpoints');
    expect(body.checkpoints[1]).toEqual({ ...second, description: describeCheckpoint(second) });

    const table = await testIo();
    expect(await main(['checkpoints', GCODE], table)).toBe(0);
    const lines = out(table).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\s*#\s+line\s+command\s+where\s+X\s+A\s+B\s+re-zero\s+tow m\s+time s$/);
    expect(lines).toHaveLength(expected.checkpoints.length + 2);
    expect(lines[1]).toMatch(/^\s*1\s+\d+\s+\d+\s+Layer 1 of 1 \(helical\), start/);
    expect(lines.at(-1)).toBe(
      `${expected.checkpoints.length} checkpoints; the program ends at line ${expected.end.line - 1} after ${expected.end.command} commands, ${expected.end.tow_m.toFixed(2)} m of tow`,
    );
  });

  it('ends quietly when its reader stops early, as `towpath checkpoints … | head` does', async () => {
    const running = startNode('server/cli.ts', ['checkpoints', GCODE], {
      TOWPATH_DATA_DIR: join(await makeTempDir(), 'data'),
    });
    // The reading end closed before the table is written: every write meets a broken pipe.
    running.child.stdout?.destroy();
    const { code, stderr } = await running.finished;
    expect([code, stderr]).toEqual([0, '']);
  });

  it('refuses a missing file, a program without checkpoints, bad G-code and bad options', async () => {
    const dir = await makeTempDir();
    const missing = await testIo();
    expect(await main(['checkpoints', join(dir, 'none.gcode')], missing)).toBe(2);
    expect(err(missing)).toMatch(/^towpath: .*none\.gcode/);

    const plain = join(dir, 'plain.gcode');
    await writeFile(plain, '; Parameters {"mandrel":{"diameter":70}}\nG0 F100\nG0 X1 A2 B0\n');
    const none = await testIo();
    expect(await main(['checkpoints', plain, '--json'], none)).toBe(1);
    expect(JSON.parse(out(none))).toEqual({
      detail:
        'The program has no checkpoints: it carries no layer or circuit comments of a program planned by Towpath',
    });

    const bad = join(dir, 'bad.gcode');
    await writeFile(bad, '; Parameters {"mandrel":{"diameter":70}}\n; Layer 1 of 1: hoop\nG0 F100\nG7 X1\n');
    const broken = await testIo();
    expect(await main(['checkpoints', bad], broken)).toBe(1);
    expect(err(broken)).toBe("towpath: Line 4: unsupported command 'G7'\n");

    const badWind = join(dir, 'bad.wind');
    await writeFile(badWind, '{ not json');
    const wind = await testIo();
    expect(await main(['checkpoints', badWind], wind)).toBe(2);

    const format = await testIo();
    expect(await main(['checkpoints', GCODE, '--axis-format', 'abc'], format)).toBe(2);
    expect(err(format)).toMatch(/--axis-format must be xab or xyz \(got 'abc'\)/);
    const two = await testIo();
    expect(await main(['checkpoints'], two)).toBe(2);
    expect(err(two)).toMatch(/missing the \.wind or G-code file/);
  });
});

describe('towpath stream --resume-from', () => {
  it('sends exactly the lead-in and then the tail from the suggested checkpoint', async () => {
    const text = await readFile(GCODE, 'utf8');
    const { checkpoints, at } = readCheckpoints(text, { stateAfterCommand: 500 });
    const pair = await createPtyPair();
    cleanups.push(() => pair.dispose());
    const onPort = await attachFakeMarlin(pair.far, {});
    cleanups.push(() => onPort.close());

    const io = await testIo();
    const code = await main(
      [
        'stream',
        GCODE,
        '--port',
        pair.near,
        '--resume-from',
        'auto',
        '--acknowledged',
        '500',
        '--tow-attached',
      ],
      io,
    );
    expect(code).toBe(0);
    const suggested = suggestCheckpoint(checkpoints, 500, DEFAULT_QUEUE_DEPTH);
    if (!suggested || !at) throw new Error('the reference program has a checkpoint before command 480');
    expect(suggested.command).toBeLessThanOrEqual(500 - DEFAULT_QUEUE_DEPTH);
    expect(err(io)).toContain(`Resuming from checkpoint ${suggested.index}: `);
    const leadIn = resumeLeadIn(suggested, {
      from: { x: at.x, a: at.a, b: at.b, rezero: at.rezero },
      towAttached: true,
      pause: false,
      axisFormat: 'xab',
    });
    const tail = prepareProgram(
      text
        .split('\n')
        .slice(suggested.line - 1)
        .join('\n'),
    ).commands.map((c) => c.command);
    expect(onPort.fake.commands).toEqual([...leadIn, ...tail]);
    // The tail is the program's commands after the checkpoint, none skipped and none twice.
    const all = prepareProgram(text).commands.map((c) => c.command);
    expect(tail).toEqual(all.slice(suggested.command));
  });

  it('pauses for the tow when it is not attached, and resumes from a chosen checkpoint', async () => {
    const text = await readFile(GCODE, 'utf8');
    const { checkpoints } = readCheckpoints(text);
    const io = await testIo();
    expect(
      await main(['stream', GCODE, '--dry-run', '--json', '--resume-from', '2', '--acknowledged', '900'], io),
    ).toBe(0);
    const second = checkpoints[1];
    if (!second) throw new Error('the reference program has two checkpoints');
    const all = prepareProgram(text).commands.length;
    // The lead-in (feed, head, carriage, mandrel, M0, G92, lean) and the tail.
    expect(JSON.parse(out(io))).toMatchObject({ status: 'completed', total: 7 + all - second.command });
    expect(err(io)).toContain('Resuming from checkpoint 2: ');
    expect(REATTACH_PAUSE.startsWith('M0 ')).toBe(true);
  });

  it('refuses bad resume options with the usage line', async () => {
    const cases: [string[], RegExp][] = [
      [['--resume-from', 'soon', '--acknowledged', '5'], /--resume-from must be auto or a checkpoint number/],
      [['--resume-from', 'auto'], /--acknowledged <n>/],
      [['--resume-from', 'auto', '--acknowledged', 'x3'], /--acknowledged must be a whole number/],
      [['--resume-from', '999', '--acknowledged', '900'], /a checkpoint number from 1 to \d+/],
      [['--resume-from', 'auto', '--acknowledged', '10'], /no checkpoint is certainly behind the machine/],
      [['--resume-from', 'auto', '--acknowledged', '99999999'], /more than the program's \d+ commands/],
      [['--tow-attached'], /go with --resume-from/],
    ];
    for (const [more, message] of cases) {
      const io = await testIo();
      expect(await main(['stream', GCODE, '--dry-run', ...more], io), more.join(' ')).toBe(2);
      expect(err(io)).toMatch(message);
      expect(err(io)).toContain('Usage: towpath stream');
    }
  });
});
