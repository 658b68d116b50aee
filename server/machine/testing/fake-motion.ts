// Test support: the fake Marlin's axes. Given to a FakeMarlin as its `react`, it follows the moves
// and coordinate commands it accepts (G0/G1 in absolute or relative mode, G28, G92) and answers
// `M114` as Marlin does: `X:… Y:… Z:… A:… B:… E:… Count X:… …`, with the letters of its build.
import type { Reaction } from './fake-marlin.ts';

/** A five-axis build names its extra axes A and B (xab); a three-axis build has X, Y and Z (xyz). */
export const FIVE_AXES = ['X', 'Y', 'Z', 'A', 'B'] as const;
export const THREE_AXES = ['X', 'Y', 'Z'] as const;

/** Steps per unit, only for the raw counts after `Count` (which the host must not read). */
const STEPS_PER_UNIT = 80;

export class FakeMotion {
  readonly axes: readonly string[];
  readonly position = new Map<string, number>();
  relative = false;
  /** Set by M18 (or M84); cleared by the next move or homing. */
  motorsOff = false;

  constructor(axes: readonly string[] = FIVE_AXES) {
    this.axes = axes;
    for (const axis of axes) this.position.set(axis, 0);
  }

  /** The FakeMarlin `react` option: follows every accepted line; answers M114. */
  readonly react = ({ command }: { command: string }): Reaction | undefined => {
    const [code = '', ...words] = command.toUpperCase().split(/\s+/);
    const values = new Map<string, number | undefined>();
    for (const word of words) {
      const letter = word.charAt(0);
      const rest = word.slice(1);
      values.set(letter, rest === '' ? undefined : Number(rest));
    }
    switch (code) {
      case 'G90':
        this.relative = false;
        return undefined;
      case 'G91':
        this.relative = true;
        return undefined;
      case 'G0':
      case 'G1':
        this.motorsOff = false;
        for (const axis of this.axes) {
          const value = values.get(axis);
          if (value === undefined) continue;
          this.position.set(axis, this.relative ? (this.position.get(axis) ?? 0) + value : value);
        }
        return undefined;
      case 'G28': {
        this.motorsOff = false;
        const named = this.axes.filter((axis) => values.has(axis));
        for (const axis of named.length > 0 ? named : this.axes) this.position.set(axis, 0);
        return undefined;
      }
      case 'G92':
        for (const axis of this.axes) {
          const value = values.get(axis);
          if (values.has(axis)) this.position.set(axis, value ?? 0);
        }
        return undefined;
      case 'M18':
      case 'M84':
        this.motorsOff = true;
        return undefined;
      case 'M114':
        return { kind: 'say', lines: [this.report()] };
      default:
        return undefined;
    }
  };

  /** Marlin's M114 line. */
  report(): string {
    const planned = this.axes.map((axis) => `${axis}:${(this.position.get(axis) ?? 0).toFixed(2)}`);
    const counts = this.axes.map(
      (axis) => `${axis}:${Math.round((this.position.get(axis) ?? 0) * STEPS_PER_UNIT)}`,
    );
    return `${planned.join(' ')} E:0.00 Count ${counts.join(' ')}`;
  }
}
