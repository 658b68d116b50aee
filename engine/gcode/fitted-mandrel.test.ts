// Any G-code previews, not only Towpath's: a program without the Parameters header is drawn on a
// mandrel fitted to its path, and its figures are those of the same program with that diameter.
import { describe, expect, it } from 'vitest';
import { buildPreview } from './preview.ts';
import { fittedMandrelDiameter, simulateGcode } from './simulator.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const FOREIGN = 'G21\nG90\nG0 X-20 Y0 F3000\nG1 X380 Y720 F3000\nG1 X0 Y1440\nM2\n';

describe('a program without the Parameters header', () => {
  it('previews on a fitted mandrel with the figures of that diameter', () => {
    const fitted = buildPreview(encode(FOREIGN), { fitMandrel: true });
    // 400 mm of carriage travel: a quarter of it.
    expect(fitted.fittedDiameter).toBe(100);
    expect(fitted.radius).toBe(50);
    const withHeader = buildPreview(encode(`; Parameters {"mandrel":{"diameter":100}}\n${FOREIGN}`));
    expect(withHeader.fittedDiameter).toBeUndefined();
    expect(fitted.summary.total_distance_mm).toBeCloseTo(withHeader.summary.total_distance_mm, 9);
    expect(fitted.summary.estimated_time_s).toBeCloseTo(withHeader.summary.estimated_time_s, 9);
    // The same path, to float precision (vertices before a diameter is known are scaled up to it).
    expect(fitted.vertexCount).toBe(withHeader.vertexCount);
    const furthest = fitted.positions.reduce(
      (most, value, k) => Math.max(most, Math.abs(value - (withHeader.positions[k] as number))),
      0,
    );
    expect(furthest).toBeLessThan(1e-4);
  });

  it('is still refused without the option (spec §5), and by the simulate route', () => {
    expect(() => buildPreview(encode(FOREIGN))).toThrow('Unable to locate Parameters header in program');
    expect(() => simulateGcode(FOREIGN)).toThrow('Unable to locate Parameters header in program');
  });

  it('keeps its own errors: a bad line is reported, not hidden by the fit', () => {
    expect(() => buildPreview(encode('G0 X1 F100\nG2 X5\n'), { fitMandrel: true })).toThrow(
      "Line 2: unsupported command 'G2'",
    );
  });

  it('fits a quarter of the travel, at least 10 mm, 100 mm when the carriage stays put', () => {
    expect(fittedMandrelDiameter(0, 1000)).toBe(250);
    expect(fittedMandrelDiameter(0, 8)).toBe(10);
    expect(fittedMandrelDiameter(0, 0)).toBe(100);
  });
});
