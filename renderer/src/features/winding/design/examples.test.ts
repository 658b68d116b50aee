// What "New definition" starts from: every bundled example plans as it is, and the blank definition
// asks for exactly the fields still to be filled in.
import { describe, expect, it } from 'vitest';
import { checkPlan } from '#engine/plan/index.ts';
import { parseWindText } from '#engine/wind/index.ts';
import { analyse } from './analysis.ts';
import { BLANK, EXAMPLES } from './examples.ts';

describe('design templates', () => {
  it('bundles the examples of resources/examples/, each of which plans', () => {
    expect(EXAMPLES.map((example) => example.name).sort()).toEqual([
      'helical-tube.wind',
      'multi-layer-tube.wind',
      'reducing-cone.wind',
      'simple-cylinder.wind',
      'vessel.wind',
    ]);
    for (const example of EXAMPLES) {
      const summary = checkPlan(parseWindText(example.text, example.name));
      expect(summary.commands, example.name).toBeGreaterThan(0);
    }
  });

  it('starts a blank definition with the mandrel, tow and feed rate to fill in', () => {
    const analysis = analyse(BLANK.text, BLANK.name);
    expect(Object.fromEntries(analysis.fieldErrors)).toEqual({
      'mandrelParameters.diameter': ['Field required'],
      'mandrelParameters.windLength': ['Field required'],
      'towParameters.width': ['Field required'],
      'towParameters.thickness': ['Field required'],
      defaultFeedRate: ['Field required'],
    });
  });
});
