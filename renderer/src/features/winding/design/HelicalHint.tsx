// The hint under a helical layer: the circuit count the planner will use, the pattern numbers that
// divide it (each a button that sets it), the coverage, and — when the pattern number does not
// divide the circuits — the planner's message in plain words with the nearest values that would.
// The figures are the engine's (helicalHint, from the planner's own kinematics).
import { helicalHint } from '#engine/plan/helical-hint.ts';
import type { HelicalContext } from './analysis.ts';

export interface HelicalHintProps extends HelicalContext {
  /** 1-based, for naming the controls. */
  index: number;
  onPatternNumber(value: number): void;
  onWindAngle(value: number): void;
}

/** At most this many pattern numbers are offered as buttons (a prime N has two; 360 has 24). */
const MAX_CHOICES = 24;

export function HelicalHint({ index, layer, mandrel, tow, onPatternNumber, onWindAngle }: HelicalHintProps) {
  // Outside the planner's angles (check 2) there is no circuit count: the layer shows that message.
  if (!(layer.windAngle >= 1 && layer.windAngle <= 89)) return null;
  const hint = helicalHint(layer, mandrel, tow);
  const N = hint.circuits;
  const P = layer.patternNumber;
  const percent = Math.round(hint.coverage * 1000) / 10;
  return (
    <section
      className="helical-hint"
      aria-label={`Helical hint for layer ${index}`}
      data-testid="helical-hint"
    >
      <p>
        <span data-testid="circuits">{N}</span> {N === 1 ? 'circuit' : 'circuits'} at {layer.windAngle}° ·
        coverage <span data-testid="coverage">{percent} %</span>{' '}
        {hint.coverage > 1 ? `(bands overlap by ${Math.round((hint.coverage - 1) * 1000) / 10} %)` : ''}
      </p>
      {hint.patternNumbers.length > 0 && (
        <fieldset className="helical-hint__choices">
          <legend>Pattern numbers that divide {N}</legend>
          {hint.patternNumbers.slice(0, MAX_CHOICES).map((p) => (
            <button
              key={p}
              type="button"
              className="button"
              aria-pressed={p === P}
              aria-label={`Pattern number ${p} for layer ${index}`}
              data-testid="pattern-choice"
              onClick={() => onPatternNumber(p)}
            >
              {p}
            </button>
          ))}
          {hint.patternNumbers.length > MAX_CHOICES && (
            <span> and {hint.patternNumbers.length - MAX_CHOICES} more</span>
          )}
        </fieldset>
      )}
      {!hint.divides && (
        <p className="helical-hint__problem" data-testid="divides-not">
          The planner lays {N} circuits for this wind angle, tow width and diameter, and {N} circuits cannot
          be shared out evenly over {P} start positions ({N} ÷ {P} leaves {N % P}), so it refuses this layer.
          {hint.nearestPatternNumbers.length > 0 && (
            <> Nearest pattern numbers that work: {hint.nearestPatternNumbers.join(' or ')}.</>
          )}
          {hint.nearestWindAngles.length > 0 && (
            <>
              {' '}
              Or keep {P} and use a wind angle of{' '}
              {hint.nearestWindAngles.map((angle, k) => (
                <span key={angle}>
                  {k > 0 && ' or '}
                  <button
                    type="button"
                    className="button button--link"
                    aria-label={`Wind angle ${angle}° for layer ${index}`}
                    onClick={() => onWindAngle(angle)}
                  >
                    {angle}°
                  </button>
                </span>
              ))}
              .
            </>
          )}
        </p>
      )}
    </section>
  );
}
