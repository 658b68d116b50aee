// A console move held to the profile before it is sent: feed against each named axis's maximum,
// and after G91 a step from the known position against the soft limits.
import { describe, expect, it } from 'vitest';
import { checkConsoleMove, isConsoleMove } from './console-move.ts';
import { type MachineProfile, profileInput, SoftLimitError } from './profile.ts';
import { ProgramError } from './program.ts';

const profile: MachineProfile = {
  id: 1,
  ...profileInput.parse({
    name: 'Rig',
    port: '/dev/ttyUSB0',
    axes: {
      X: { min: 0, max: 100, maxFeed: 5000 },
      A: { maxFeed: 20000 },
      B: { min: -90, max: 90, maxFeed: 3000 },
    },
  }),
};
const at = { x: 50, a: 0, b: 0 };

describe('console moves', () => {
  it('knows a linear move from other lines', () => {
    expect(['G0 X1', 'g1 x1', 'G01 A5', 'N10 G1 B2', ' G00'].map(isConsoleMove)).toEqual(Array(5).fill(true));
    expect(['G10', 'G28', 'G92 X0', 'M114', 'G4 P1'].map(isConsoleMove)).toEqual(Array(5).fill(false));
  });

  it('refuses a feed above the maximum of an axis the line names, in either mode', () => {
    for (const relative of [false, true]) {
      const context = { axisFormat: 'xab' as const, relative, position: at };
      expect(() => checkConsoleMove(profile, 'G1 X10 F5001', context)).toThrow(ProgramError);
      expect(() => checkConsoleMove(profile, 'G1 A10 B1 F4000', context)).toThrow(
        "'G1 A10 B1 F4000': feed 4000 is above the maximum feed of B (3000) in profile 'Rig'; nothing was sent",
      );
      expect(() => checkConsoleMove(profile, 'G1 A10 F4000 ; only the mandrel', context)).not.toThrow();
      expect(() => checkConsoleMove(profile, 'G1 X10 F5000', context)).not.toThrow();
    }
  });

  it('reads the axis letters of the axis format', () => {
    const context = { axisFormat: 'xyz' as const, relative: true, position: at };
    expect(() => checkConsoleMove(profile, 'G1 Z100 F100', context)).toThrow(
      "'G1 Z100 F100' moves B to 100, above the soft limit 90 of profile 'Rig'; nothing was sent",
    );
    expect(() => checkConsoleMove(profile, 'G1 Y100000 F100', context)).not.toThrow();
  });

  it('checks a relative step from where the axis stands', () => {
    const context = { axisFormat: 'xab' as const, relative: true, position: at };
    expect(() => checkConsoleMove(profile, 'G1 X50', context)).not.toThrow();
    expect(() => checkConsoleMove(profile, 'G1 X50.5', context)).toThrow(
      "'G1 X50.5' moves X to 100.5, above the soft limit 100 of profile 'Rig'; nothing was sent",
    );
    expect(() => checkConsoleMove(profile, 'G0 X-51', context)).toThrow(SoftLimitError);
  });

  it('refuses a relative step on a limited axis when the position is unknown', () => {
    const context = { axisFormat: 'xab' as const, relative: true, position: undefined };
    expect(() => checkConsoleMove(profile, 'G1 X1', context)).toThrow(
      /^'G1 X1' is a relative move \(after G91\) and the position of X is unknown/,
    );
    // The mandrel has no limits: its steps need no position.
    expect(() => checkConsoleMove(profile, 'G1 A3600', context)).not.toThrow();
  });

  it('leaves an absolute target to the program check', () => {
    const context = { axisFormat: 'xab' as const, relative: false, position: undefined };
    expect(() => checkConsoleMove(profile, 'G1 X500', context)).not.toThrow();
  });
});
