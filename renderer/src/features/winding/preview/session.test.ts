// The preview worker's session, run on this thread as the main-thread fallback runs it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPreview } from '#engine/gcode/index.ts';
import { prepareProgram } from '#engine/machine/program.ts';
import { REFERENCE_ROOT } from '../../../../../reference/paths.ts';
import { metricsJson } from '../DefinitionView.tsx';
import { gcodeName } from '../save/save-program.ts';
import { lastVertexAtOrBefore } from '../scene/timeline.ts';
import { PreviewClient, type ProgressReport } from './client.ts';
import { ProgramBytes } from './program-bytes.ts';
import type { LoadResult, ProgramRequest, ViewGeometry, WorkerAnswer } from './protocol.ts';
import { PreviewSession } from './session.ts';

const read = (path: string) => readFileSync(join(REFERENCE_ROOT, path));
const XAB = { axisFormat: 'xab', verbose: false } as const;

function session(tap?: (geometry: ViewGeometry) => void) {
  const answers: WorkerAnswer[] = [];
  const s = new PreviewSession((answer) => answers.push(answer));
  if (tap) s.tapGeometry(tap);
  const ask = async (request: ProgramRequest) => {
    answers.length = 0;
    await s.handle(request);
    return answers.filter((a) => a.type !== 'progress');
  };
  const open = async (
    name: string,
    bytes: Uint8Array,
    options: typeof XAB | { axisFormat: 'xyz'; verbose: false } = XAB,
  ) => {
    const [answer] = await ask({ type: 'open-blob', id: 1, name, blob: new Blob([bytes.slice()]), options });
    if (answer?.type !== 'loaded') throw new Error(`unexpected ${JSON.stringify(answer)}`);
    return answer.result;
  };
  const blob = async () => {
    const [answer] = await ask({ type: 'program-blob', id: 2 });
    if (answer?.type !== 'program-blob' || !answer.blob) throw new Error('no program');
    return Buffer.from(await answer.blob.arrayBuffer());
  };
  return { ask, open, blob };
}

function ok(result: LoadResult) {
  if (!result.ok) throw new Error(result.error.message);
  return result;
}

describe('preview session', () => {
  it('plans a definition to the reference bytes, metrics and geometry', async () => {
    const s = session();
    const expected = JSON.parse(read('simple_cylinder/expected.json').toString());
    const result = ok(await s.open('input.wind', read('simple_cylinder/input.wind')));
    expect(result.plan).toEqual(expected.plan);
    expect(metricsJson(result.plan as never)).toBe(`${JSON.stringify(expected.plan)}\n`);
    const gcode = read('simple_cylinder/expected-xab.gcode');
    expect((await s.blob()).equals(gcode)).toBe(true);
    const preview = buildPreview(new Uint8Array(gcode));
    expect(result.geometry.vertexCount).toBe(preview.vertexCount);
    expect(result.geometry.positions).toEqual(preview.positions);
    expect(result.geometry.mandrel).toMatchObject({ fitted: false, startX: 0 });

    const [replanned] = await s.ask({
      type: 'replan',
      id: 3,
      options: { axisFormat: 'xyz', verbose: false },
    });
    expect(replanned?.type === 'loaded' && ok(replanned.result).plan?.axisFormat).toBe('xyz');
    expect((await s.blob()).equals(read('simple_cylinder/expected-xyz.gcode'))).toBe(true);
  });

  it('with a scene in the worker: the scene keeps the geometry, the page gets its own equal copy', async () => {
    const tapped: ViewGeometry[] = [];
    const s = session((geometry) => tapped.push(geometry));
    const result = ok(await s.open('input.wind', read('simple_cylinder/input.wind')));
    const preview = buildPreview(new Uint8Array(read('simple_cylinder/expected-xab.gcode')));
    expect(tapped).toHaveLength(1);
    const kept = tapped[0] as ViewGeometry;
    for (const key of ['positions', 'commandIndex', 'elapsed', 'layerOf'] as const) {
      expect(result.geometry[key], key).toEqual(kept[key]);
      // Separate buffers: transferring the page's copy leaves the scene's arrays whole.
      expect(result.geometry[key].buffer, key).not.toBe(kept[key].buffer);
    }
    expect(kept.positions).toEqual(preview.positions);
    expect(result.geometry.vertexCount).toBe(preview.vertexCount);
  });

  it('answers a command line with its source line, and the dry-run count', async () => {
    const s = session();
    await s.open('input.wind', read('conf_valid_skip/input.wind'));
    const text = read('conf_valid_skip/expected-xab.gcode').toString();
    const [line] = await s.ask({ type: 'line', id: 4, command: 1 });
    const sourceLines = text.split('\n');
    const firstCommand = sourceLines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith(';'));
    expect(line).toMatchObject({
      type: 'line',
      line: { command: 1, sourceLine: firstCommand + 1, text: sourceLines[firstCommand] },
    });
    const [none] = await s.ask({ type: 'line', id: 5, command: 10_000 });
    expect(none).toMatchObject({ line: null });
    const [dry] = await s.ask({ type: 'dry-run', id: 6 });
    expect(dry).toMatchObject({ total: prepareProgram(text).total });
  });

  it('reports invalid definitions with the exact messages', async () => {
    for (const name of ['conf_invalid_missing_required_field', 'conf_invalid_wind_angle_out_of_range']) {
      const expected = JSON.parse(read(`${name}/expected.json`).toString()).error;
      const result = await session().open('part.wind', read(`${name}/input.wind`));
      expect(result).toMatchObject({
        ok: false,
        error: { level: expected.level, message: expected.detail.replaceAll('{path}', 'part.wind') },
      });
    }
  });

  it('simulates G-code, fits the mandrel to it, and refuses bad bytes as the simulate route does', async () => {
    const s = session();
    const expected = JSON.parse(read('multi_layer/expected.json').toString()).simulate;
    const result = ok(await s.open('job.gcode', read('multi_layer/expected-xab.gcode')));
    for (const key of Object.keys(expected))
      expect(result.simulation[key as 'moves']).toBeCloseTo(expected[key], 6);
    expect(result.geometry.mandrel.fitted).toBe(true);
    expect(result.geometry.layers.map((l) => l.windType)).toEqual(['hoop', 'helical']);

    const bad = await s.open('bad.gcode', new Uint8Array([0x47, 0x30, 0xff, 0x0a]));
    expect(bad).toMatchObject({
      ok: false,
      error: { level: 'simulation', message: 'Could not read G-code at bad.gcode: not valid UTF-8 (byte 2)' },
    });
    const empty = await s.open('empty.gcode', new Uint8Array());
    expect(empty).toMatchObject({ ok: false, error: { level: 'simulation', message: 'Program is empty' } });
  });
});

describe('preview client on the main thread (no Worker here)', () => {
  it('opens a program with progress, answers lines and hands out the program to save', async () => {
    expect(typeof Worker).toBe('undefined');
    const client = new PreviewClient();
    const progress: ProgressReport[] = [];
    const gcode = read('conf_valid_helical/expected-xab.gcode');
    const result = ok(
      await client.openBlob('helical.gcode', new Blob([gcode]), XAB, (p) => progress.push(p)),
    );
    expect(progress.at(-1)).toEqual({ phase: 'reading', done: gcode.length, total: gcode.length });
    expect(result.geometry.commandCount).toBe(buildPreview(new Uint8Array(gcode)).commandCount);
    const last = await client.line(result.geometry.commandCount);
    expect(last?.text).toBe(gcode.toString().trimEnd().split('\n').at(-1));
    const blob = await client.programBlob();
    expect(Buffer.from(await (blob as Blob).arrayBuffer()).equals(gcode)).toBe(true);
    await client.close();
  });
});

describe('planning a definition as it is edited', () => {
  // The largest reference definition wound eight times over: its plan takes many slices.
  const avbay = JSON.parse(read('avbay_single/input.wind').toString());
  const bench = JSON.stringify({ ...avbay, layers: Array(8).fill(avbay.layers[0]) });

  it('a newer edit noticed while an older one plans stops it; the newer becomes the open program', async () => {
    const answers: WorkerAnswer[] = [];
    const s = new PreviewSession((answer) => answers.push(answer));
    const older: ProgramRequest = { type: 'plan-text', id: 10, name: 'part.wind', text: bench, options: XAB };
    const newer: ProgramRequest = {
      type: 'plan-text',
      id: 11,
      name: 'part.wind',
      text: read('conf_valid_hoop/input.wind').toString(),
      options: XAB,
    };
    s.notice(older);
    // handle() returns at the plan's first pause between slices: the newer edit arrives then, as a
    // message does in the worker.
    const running = s.handle(older);
    s.notice(newer);
    await running;
    await s.handle(newer);
    const final = answers.filter((a) => a.type !== 'progress');
    expect(final.map((a) => [a.type, a.id])).toEqual([
      ['cancelled', 10],
      ['loaded', 11],
    ]);
    const [answer] = await (async () => {
      answers.length = 0;
      await s.handle({ type: 'program-blob', id: 12 });
      return answers;
    })();
    const blob = answer?.type === 'program-blob' ? answer.blob : null;
    expect(
      Buffer.from(await (blob as Blob).arrayBuffer()).equals(read('conf_valid_hoop/expected-xab.gcode')),
    ).toBe(true);
  });

  it('planText answers an overtaken call as cancelled and the newest with its plan', async () => {
    const client = new PreviewClient();
    const first = client.planText('part.wind', bench, XAB);
    const second = client.planText('part.wind', read('conf_valid_helical/input.wind').toString(), XAB);
    expect(await first).toEqual({ cancelled: true });
    const result = await second;
    if ('cancelled' in result) throw new Error('the newest edit was cancelled');
    const expected = JSON.parse(read('conf_valid_helical/expected.json').toString());
    expect(ok(result).plan).toEqual(expected.plan);
    const blob = await client.programBlob();
    const gcode = read('conf_valid_helical/expected-xab.gcode');
    expect(Buffer.from(await (blob as Blob).arrayBuffer()).equals(gcode)).toBe(true);
    await client.close();
  });

  it('an edit of the program on show keeps the views’ cameras; an opened file or another name does not', async () => {
    const answers: WorkerAnswer[] = [];
    const s = new PreviewSession((answer) => answers.push(answer));
    const text = read('conf_valid_hoop/input.wind').toString();
    const keep = async (request: ProgramRequest) => {
      answers.length = 0;
      await s.handle(request);
      const loaded = answers.find((a) => a.type === 'loaded');
      if (loaded?.type !== 'loaded' || !loaded.result.ok) throw new Error('not planned');
      return loaded.result.geometry.keepCamera;
    };
    const blob = new Blob([text]);
    expect(await keep({ type: 'open-blob', id: 1, name: 'part.wind', blob, options: XAB })).toBe(false);
    expect(await keep({ type: 'plan-text', id: 2, name: 'part.wind', text, options: XAB })).toBe(true);
    expect(await keep({ type: 'replan', id: 3, options: { axisFormat: 'xyz', verbose: false } })).toBe(true);
    expect(await keep({ type: 'plan-text', id: 4, name: 'other.wind', text, options: XAB })).toBe(false);
  });

  it('an edit that does not validate answers the exact message and keeps nothing planned', async () => {
    const client = new PreviewClient();
    const result = await client.planText('part.wind', '{"layers": [', XAB);
    expect(result).toMatchObject({ ok: false, error: { level: 'file' } });
    expect('error' in result && result.error.message).toMatch(/^Invalid JSON in part\.wind: /);
    await client.close();
  });
});

describe('helpers', () => {
  it('names the G-code as the planner does and finds the vertex at a command', () => {
    expect(gcodeName('part.wind')).toBe('part.gcode');
    expect(gcodeName('PART.WIND')).toBe('PART.gcode');
    expect(gcodeName('vessel.nc')).toBe('vessel.nc');
    expect(gcodeName('notes')).toBe('notes.gcode');
    const commands = new Uint32Array([0, 1, 1, 2, 5, 5]);
    expect(lastVertexAtOrBefore(commands, 0)).toBe(0);
    expect(lastVertexAtOrBefore(commands, 1)).toBe(2);
    expect(lastVertexAtOrBefore(commands, 4)).toBe(3);
    expect(lastVertexAtOrBefore(commands, 99)).toBe(5);
  });

  it('indexes command lines across CRLF, CR, comments and blank lines', () => {
    const program = new ProgramBytes();
    const text = '; header\r\nG0 X1\r\n\r\n  ; note\rG0 X2 ; two\nG0 X3';
    const bytes = new TextEncoder().encode(text);
    program.append(bytes.subarray(0, 7));
    program.append(bytes.subarray(7));
    expect(program.commandCount).toBe(3);
    expect(program.commandLine(1)).toEqual({ sourceLine: 2, text: 'G0 X1' });
    expect(program.commandLine(2)).toEqual({ sourceLine: 5, text: 'G0 X2 ; two' });
    expect(program.commandLine(3)).toEqual({ sourceLine: 6, text: 'G0 X3' });
    expect(program.commandLine(0)).toBeNull();
  });
});
