// The profile's delivery-eye section is the wind schema's `machine` section, not a second copy:
// the same fields, the same bounds, and null accepted where a `.wind` accepts it.
import { describe, expect, it } from 'vitest';
import { MachineSchema } from '../wind/schema.ts';
import { eyeGeometry, fieldIssueMessage, profileInput } from './profile.ts';

const base = { name: 'Rig', port: '/dev/ttyUSB0' };

describe('profile eye geometry', () => {
  it('has exactly the wind schema machine fields', () => {
    expect(Object.keys(eyeGeometry.shape).sort()).toEqual(Object.keys(MachineSchema.shape).sort());
  });

  it('accepts and refuses each value as a .wind machine section does', () => {
    const values = [
      { eyeRadius: 120 },
      { eyeRadius: 0 },
      { eyeRadius: null },
      { carriageMin: -10, carriageMax: null },
      { eyeClearance: 0 },
      { eyeClearance: -1 },
      { carriageMax: 'far' },
    ];
    for (const machine of values) {
      const wind = MachineSchema.safeParse(machine).success;
      expect({ machine, ok: eyeGeometry.safeParse(machine).success }).toEqual({ machine, ok: wind });
    }
  });

  it('keeps a profile without eye fields as {} (no schema defaults stored)', () => {
    expect(profileInput.parse(base).machine).toEqual({});
    expect(profileInput.parse({ ...base, machine: { eyeRadius: 90 } }).machine).toEqual({ eyeRadius: 90 });
  });

  it('spells the bounds of the wind schema in the door words', () => {
    const issues = (machine: object) =>
      profileInput
        .safeParse({ ...base, machine }, { error: fieldIssueMessage })
        .error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(issues({ eyeRadius: 0 })).toEqual(['machine.eyeRadius: must be more than 0']);
    expect(issues({ eyeClearance: -2 })).toEqual(['machine.eyeClearance: must be 0 or more']);
    // A field's own message wins over the map.
    expect(
      profileInput.safeParse({ ...base, queueDepth: 2.5 }, { error: fieldIssueMessage }).error?.issues[0]
        ?.message,
    ).toBe('must be a whole number');
  });
});
