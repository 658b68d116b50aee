// Which re-plans keep the 3D bands already uploaded: the engine's own plans of a reference
// definition, edited the way a user would in the Design view.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPreview } from '#engine/gcode/index.ts';
import { planToString } from '#engine/plan/index.ts';
import { parseWindDefinition } from '#engine/wind/index.ts';
import type { WindDefinition } from '#engine/wind/types.ts';
import { REFERENCE_ROOT } from '../../../../../reference/paths.ts';
import { viewGeometry } from '../preview/session.ts';
import { samePath } from './same-path.ts';

function geometryOf(edit: (definition: WindDefinition) => void = () => {}) {
  const text = readFileSync(join(REFERENCE_ROOT, 'multi_layer', 'input.wind'));
  const definition = parseWindDefinition(new Uint8Array(text), 'input.wind');
  edit(definition);
  const gcode = planToString(definition).gcode;
  return viewGeometry(buildPreview(new TextEncoder().encode(gcode)), definition, true);
}

describe('samePath', () => {
  const original = geometryOf();

  it('holds for a re-plan that changes only the feed rate (other timing, the same path)', () => {
    const faster = geometryOf((d) => {
      d.defaultFeedRate = (d.defaultFeedRate ?? 1000) * 1.7;
    });
    expect(faster.elapsed).not.toEqual(original.elapsed);
    expect(samePath(original, faster)).toBe(true);
  });

  it('fails when the path, the mandrel or the tow changes', () => {
    const longer = geometryOf((d) => {
      d.mandrelParameters.windLength += 10;
    });
    expect(samePath(original, longer)).toBe(false);
    const thicker = geometryOf((d) => {
      d.towParameters.thickness *= 2;
    });
    expect(samePath(original, thicker)).toBe(false);
    const fewer = geometryOf((d) => {
      d.layers.pop();
    });
    expect(samePath(original, fewer)).toBe(false);
  });

  it('fails on a single moved vertex', () => {
    const moved = { ...original, positions: original.positions.slice() };
    const at = 3 * Math.floor(original.vertexCount / 2) + 1;
    moved.positions[at] = (original.positions[at] as number) + 0.01;
    expect(samePath(original, moved)).toBe(false);
  });
});
