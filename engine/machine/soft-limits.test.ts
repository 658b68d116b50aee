import { describe, expect, it } from 'vitest';
import { type MachineProfile, profileInput } from './profile.ts';
import { prepareProgram } from './program.ts';
import { firstSoftLimitViolation, SOFT_LIMIT_SLICE, softLimitCheck } from './soft-limits.ts';

function profile(axes: object, axisFormat: 'xab' | 'xyz' = 'xab'): MachineProfile {
  return { id: 1, ...profileInput.parse({ name: 'Rig', port: '/dev/ttyUSB0', axisFormat, axes }) };
}

const X_0_100 = profile({ X: { min: 0, max: 100 } });
const first = (text: string, p = X_0_100, start?: { x: number; a: number; b: number }) =>
  firstSoftLimitViolation(prepareProgram(text), p, start);

describe('a program against soft limits', () => {
  it('names the first line that leaves them, by its line in the text', () => {
    expect(first('; header\n\nG0 X10\nG1 X100 F100\nG1 X100.5\nG1 X-5')).toMatchObject({
      sourceLine: 5,
      command: 'G1 X100.5',
      axis: 'X',
      target: 100.5,
    });
    expect(first('G0 X10\nG1 X-0.01 F100')?.message).toBe(
      "Line 2: 'G1 X-0.01 F100' moves X to -0.01, below the soft limit 0 of profile 'Rig'; nothing was streamed",
    );
    expect(first('G0 X0\nG1 X100 F100')).toBeUndefined();
  });

  it('follows G92 shifts and G28 homing in the controller coordinates', () => {
    // At 60, G92 makes it 0: X40 is 100 (inside), X41 is 101 (outside).
    expect(first('G0 X60\nG92 X0\nG1 X40 F100')).toBeUndefined();
    expect(first('G0 X60\nG92 X0\nG1 X41 F100')).toMatchObject({ sourceLine: 3, target: 101 });
    // G28 puts the axis at its zero and clears the shift.
    expect(first('G0 X60\nG92 X0\nG28 X\nG1 X90 F100')).toBeUndefined();
    // A bare G28 homes every axis; `G28 A` leaves X's shift alone.
    expect(first('G0 X60\nG92 X0\nG28 A\nG1 X50 F100')).toMatchObject({ sourceLine: 4, target: 110 });
    // The start is where the controller said the axes were: G92 there shifts from it.
    expect(first('G92 X0\nG1 X30 F100', X_0_100, { x: 80, a: 0, b: 0 })).toMatchObject({ target: 110 });
  });

  it('checks the head and the mandrel by the program letters, and leaves unlimited axes alone', () => {
    const head = profile({ A: { min: -720, max: 720 }, B: { min: -90, max: 90 } });
    expect(first('G1 X1000 A10 B45 F100\nG1 A800', head)).toMatchObject({ axis: 'A', sourceLine: 2 });
    expect(first('G1 X5 B-91 F100', head)).toMatchObject({ axis: 'B', target: -91 });
    // An xyz program drives the mandrel as Y and the head as Z.
    expect(first('G1 X5 Y10 F100\nG1 Z95', profile({ B: { max: 90 } }, 'xyz'))).toMatchObject({
      axis: 'B',
      sourceLine: 2,
    });
    expect(first('G1 X5000 A99999 F100', profile({}))).toBeUndefined();
  });

  it('yields between slices so a long program does not hold the caller', () => {
    const lines = Array.from({ length: SOFT_LIMIT_SLICE * 2 + 5 }, (_, i) => `G1 X${i % 100} F100`);
    lines.push('G1 X120');
    const check = softLimitCheck(prepareProgram(lines.join('\n')), X_0_100, undefined);
    let yields = 0;
    let step = check.next();
    while (!step.done) {
      yields++;
      step = check.next();
    }
    expect(yields).toBe(2);
    expect(step.value).toMatchObject({ sourceLine: lines.length, target: 120 });
  });
});

describe('a program against the maximum feeds', () => {
  const FEEDS = profile({ X: { maxFeed: 5000 }, A: { maxFeed: 20000 } });

  it('names the first line that drives an axis faster than its maximum', () => {
    expect(first('G1 X10 F5000\nG1 X20\nG1 X30 F6000\nG1 X40 F9000', FEEDS)).toMatchObject({
      sourceLine: 3,
      command: 'G1 X30 F6000',
      axis: 'X',
    });
    expect(first('G0 X10 F100\nG1 A10 F30000', FEEDS)?.message).toBe(
      "Line 2: 'G1 A10 F30000' moves A at 30000 per minute, above its maximum feed 20000 in profile 'Rig'; nothing was streamed",
    );
    // The modal feed carries to later lines, as on the controller.
    expect(first('G1 X1 F6000\nG1 A5', profile({ A: { maxFeed: 5000 } }))).toMatchObject({
      sourceLine: 2,
      axis: 'A',
    });
  });

  it('gives each axis its share of a combined move', () => {
    // X 30 and A 40 at F 10000: X goes at 6000, A at 8000.
    expect(first('G1 X30 A40 F10000', FEEDS)).toMatchObject({ axis: 'X' });
    expect(
      first('G1 X30 A40 F10000', profile({ X: { maxFeed: 6000 }, A: { maxFeed: 8000 } })),
    ).toBeUndefined();
    // An unlimited axis and a move that stands still pass.
    expect(first('G1 B30 F90000\nG1 X0 F90000', FEEDS)).toBeUndefined();
  });
});
