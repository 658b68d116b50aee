// @vitest-environment jsdom
// The helical hint says what the planner will do: its circuit count is the planner's own, the
// pattern numbers it offers are exactly those the planning checks accept, and the wind angles it
// suggests when a pattern number does not divide are ones the planner accepts.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PlanningError } from '#engine/errors.ts';
import { checkLayer, initialCheckState } from '#engine/plan/checks.ts';
import { helicalKinematics } from '#engine/plan/kinematics.ts';
import type { HelicalLayer, MandrelParameters, TowParameters, WindDefinition } from '#engine/wind/types.ts';
import { HelicalHint } from './HelicalHint.tsx';

afterEach(cleanup);

const tow: TowParameters = { width: 7, thickness: 0.5 };
const mandrelOf = (diameter: number): MandrelParameters => ({
  diameter,
  windLength: 500,
  endDiameter: null,
  domes: null,
  meridianSegments: 4096,
});
const layerOf = (windAngle: number, patternNumber: number): HelicalLayer => ({
  windType: 'helical',
  windAngle,
  patternNumber,
  skipIndex: 1,
  lockDegrees: 180,
  leadInMM: 5,
  leadOutDegrees: 15,
  skipInitialNearLock: false,
});

/** The planning checks' verdict on a layer: null when they pass, else the planner's message. */
function plannerSays(layer: HelicalLayer, mandrel: MandrelParameters): string | null {
  const definition = {
    schemaVersion: '1.0',
    layers: [layer],
    mandrelParameters: mandrel,
    towParameters: tow,
    defaultFeedRate: 9000,
    machine: null,
  } as WindDefinition;
  try {
    checkLayer(1, layer, definition, initialCheckState());
    return null;
  } catch (error) {
    if (error instanceof PlanningError) return error.message;
    throw error;
  }
}

function renderHint(layer: HelicalLayer, mandrel: MandrelParameters) {
  const onPatternNumber = vi.fn();
  const onWindAngle = vi.fn();
  render(
    <HelicalHint
      index={1}
      layer={layer}
      mandrel={mandrel}
      tow={tow}
      onPatternNumber={onPatternNumber}
      onWindAngle={onWindAngle}
    />,
  );
  return { onPatternNumber, onWindAngle };
}

describe('HelicalHint', () => {
  it('shows the planner’s circuit count and offers exactly the pattern numbers the checks accept, over a sweep', () => {
    for (const diameter of [20, 70, 150]) {
      for (let angle = 5; angle <= 85; angle += 8) {
        const mandrel = mandrelOf(diameter);
        const N = helicalKinematics(layerOf(angle, 2), mandrel, tow).numCircuits;
        renderHint(layerOf(angle, 2), mandrel);
        expect(Number(screen.getByTestId('circuits').textContent), `${diameter} mm, ${angle}°`).toBe(N);
        const offered = screen.queryAllByTestId('pattern-choice').map((button) => Number(button.textContent));
        // Skip index 1 is below and coprime with every P ≥ 2, and lock 180° passes both lock
        // conditions, so the checks pass exactly when P divides the circuits. (P = 1 cannot be
        // checked with any skip index; it divides everything.)
        const accepted = [1];
        for (let P = 2; P <= N; P++) if (plannerSays(layerOf(angle, P), mandrel) === null) accepted.push(P);
        expect(offered, `${diameter} mm, ${angle}°`).toEqual(accepted);
        cleanup();
      }
    }
  });

  it('explains a pattern number that does not divide, with nearest values the planner accepts', () => {
    const mandrel = mandrelOf(70);
    // 70 mm, 7 mm tow at 35°: 26 circuits, which 4 does not divide (2 and 13 do).
    const layer = layerOf(35, 4);
    expect(plannerSays(layer, mandrel)).toBe(
      'Layer 1: computed circuit count is not divisible by patternNumber (26 % 4 != 0)',
    );
    const { onPatternNumber, onWindAngle } = renderHint(layer, mandrel);
    const problem = screen.getByTestId('divides-not');
    expect(problem.textContent).toContain('The planner lays 26 circuits');
    expect(problem.textContent).toContain('Nearest pattern numbers that work: 2 or 13.');
    const angles = within(problem)
      .getAllByRole('button')
      .map((button) => Number(button.textContent?.replace('°', '')));
    expect(angles.length).toBeGreaterThan(0);
    for (const angle of angles) expect(plannerSays(layerOf(angle, 4), mandrel), `${angle}°`).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: `Wind angle ${angles[0]}° for layer 1` }));
    expect(onWindAngle).toHaveBeenCalledWith(angles[0]);
    fireEvent.click(screen.getByRole('button', { name: 'Pattern number 13 for layer 1' }));
    expect(onPatternNumber).toHaveBeenCalledWith(13);
  });

  it('says nothing for an angle the planner refuses outright (its own message stands)', () => {
    renderHint(layerOf(95, 31), mandrelOf(70));
    expect(screen.queryByTestId('helical-hint')).toBeNull();
  });
});
