// The jog pad: home, jog X, A and B by a chosen step and feed, set zero, motors off, and the
// position the controller last reported. While it has focus the arrow keys jog X (←/→) and A
// (↑/↓), Page Up/Down jog B; a held key does not repeat, so a stuck key cannot run an axis away.
import { type KeyboardEvent, useId, useState } from 'react';
import { JOG_STEPS, MANUAL_AXES, type ManualAxis } from '#engine/machine/manual.ts';
import type { AxisPosition } from '#engine/machine/types.ts';
import { ChoiceSelect } from './ChoiceSelect.tsx';
import type { MachineView } from './useMachine.ts';

/** Feeds offered, in mm (X) or degrees (A, B) per minute. */
export const JOG_FEEDS = [100, 500, 1000, 3000, 6000] as const;
const DEFAULT_STEP = 1;
const DEFAULT_FEED = 1000;

const MINUS = '\u2212';

const UNIT: Record<ManualAxis, string> = { X: 'mm', A: '°', B: '°' };

const KEYS: Record<string, [ManualAxis, 1 | -1]> = {
  ArrowRight: ['X', 1],
  ArrowLeft: ['X', -1],
  ArrowUp: ['A', 1],
  ArrowDown: ['A', -1],
  PageUp: ['B', 1],
  PageDown: ['B', -1],
};

export interface JogPadProps {
  machine: Pick<MachineView, 'home' | 'jog' | 'zero' | 'readPosition' | 'motorsOff'>;
  position: AxisPosition | undefined;
  /** Why the pad is off (not connected, a job runs, no control from here); null when it is on. */
  disabledReason: string | null;
  /** The axes that may home (the connection's machine profile says); all three by default. */
  homeable?: readonly ManualAxis[];
}

export function JogPad({ machine, position, disabledReason, homeable = MANUAL_AXES }: JogPadProps) {
  const ids = useId();
  const [step, setStep] = useState<number>(DEFAULT_STEP);
  const [feed, setFeed] = useState<number>(DEFAULT_FEED);
  const off = disabledReason !== null;

  const onKeyDown = (event: KeyboardEvent<HTMLFieldSetElement>) => {
    const jog = KEYS[event.key];
    // The selectors keep their own arrow keys.
    if (!jog || off || event.target instanceof HTMLSelectElement) return;
    event.preventDefault();
    if (event.repeat) return;
    void machine.jog(jog[0], jog[1] * step, feed);
  };

  return (
    <fieldset
      aria-describedby={`${ids}-keys${off ? ` ${ids}-off` : ''}`}
      aria-keyshortcuts="ArrowLeft ArrowRight ArrowUp ArrowDown PageUp PageDown"
      className="jog"
      data-testid="jog-pad"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the pad itself takes focus so its keys work before a button is chosen
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <legend>Manual control</legend>
      {off && (
        <p id={`${ids}-off`} className="machine__notice" data-testid="jog-disabled">
          {disabledReason}
        </p>
      )}
      <p className="jog__position" data-testid="position" aria-live="polite">
        Position:{' '}
        {position
          ? MANUAL_AXES.map((axis) => `${axis} ${formatAxis(position, axis)}`).join(' · ')
          : 'not read yet'}
      </p>
      <div className="toolbar">
        <ChoiceSelect label="Jog step" value={step} choices={JOG_STEPS} onChange={setStep} disabled={off} />
        <ChoiceSelect
          label="Jog feed"
          value={feed}
          choices={JOG_FEEDS}
          onChange={setFeed}
          disabled={off}
          show={(value) => `${value} /min`}
        />
      </div>
      <div className="jog__axes">
        {MANUAL_AXES.map((axis) => (
          <div key={axis} className="jog__axis">
            <button type="button" onClick={() => void machine.jog(axis, -step, feed)} disabled={off}>
              Jog {axis}
              {MINUS}
            </button>
            <button type="button" onClick={() => void machine.jog(axis, step, feed)} disabled={off}>
              Jog {axis}+
            </button>
            <button
              type="button"
              onClick={() => void machine.home(axis)}
              disabled={off || !homeable.includes(axis)}
            >
              Home {axis}
            </button>
          </div>
        ))}
      </div>
      <div className="toolbar">
        <button type="button" onClick={() => void machine.home('all')} disabled={off}>
          Home all
        </button>
        <button type="button" onClick={() => void machine.zero()} disabled={off}>
          Set zero
        </button>
        <button type="button" onClick={() => void machine.readPosition()} disabled={off}>
          Read position
        </button>
        <button type="button" onClick={() => void machine.motorsOff()} disabled={off}>
          Motors off
        </button>
      </div>
      <p id={`${ids}-keys`} className="machine__hint">
        With the pad focused: ← → jog X, ↑ ↓ jog A, Page Up / Page Down jog B (by the chosen step).
      </p>
    </fieldset>
  );
}

function formatAxis(position: AxisPosition, axis: ManualAxis): string {
  const value = axis === 'X' ? position.x : axis === 'A' ? position.a : position.b;
  return `${value.toFixed(2)} ${UNIT[axis]}`;
}
