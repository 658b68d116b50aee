import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { ESTOP_SHORTCUT } from '#engine/machine/door.ts';
import { useEstopLine } from '../lib/estop-line.ts';
import { emergencyStop, isConnected, useMachineDoor, useMachineState } from '../lib/machine-door.ts';

/** A click this soon after a press that already stopped the machine belongs to that press. */
const PRESS_CLICK_MS = 5000;

/**
 * "Emergency stop", on every screen while a machine is connected. A click or the shortcut sends
 * M112 to the machine process's own door, not through the core: over a WebSocket line opened when
 * the button appears, or by POST when that line is not open. Not offered to a browser the
 * server refuses control (a signed-in LAN viewer sees the machine's state): a stop button that
 * cannot stop anything must not look like one.
 */
export function EmergencyStop() {
  const state = useMachineState();
  const door = useMachineDoor();
  const machineDoor = door?.url ?? null;
  const [outcome, setOutcome] = useState<string | null>(null);
  const visible = state !== null && isConnected(state) && door?.control !== false;
  // Open while the button is on screen: a press is then one message on an open connection.
  const line = useEstopLine(machineDoor, visible);
  // When the last stop was sent by a press, so the click that ends the same press sends nothing more.
  const pressedAt = useRef(Number.NEGATIVE_INFINITY);

  const stop = useCallback(() => {
    emergencyStop(machineDoor, line.current).then(
      (answer) => setOutcome(answer.sent ? 'Emergency stop sent' : 'No machine was connected'),
      (error: Error) => setOutcome(`Emergency stop failed: ${error.message}`),
    );
  }, [machineDoor, line]);

  // A layout effect: the shortcut works from the moment the button is on screen, not a moment later.
  useLayoutEffect(() => {
    if (!visible) return;
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toUpperCase() === 'E') {
        event.preventDefault();
        stop();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [visible, stop]);

  return (
    <div className="estop" data-machine-state={state ?? 'unknown'}>
      {visible && (
        <button
          type="button"
          className="estop__button"
          aria-keyshortcuts={ESTOP_SHORTCUT.aria}
          // Like a hardware e-stop, it acts on press, not on release: a mouse or touch press sends
          // M112 at once. Keyboard activation (Enter, Space) arrives as a click, which also sends it.
          onPointerDown={(event) => {
            if (event.button !== 0) return;
            pressedAt.current = performance.now();
            stop();
          }}
          onClick={(event) => {
            if (event.detail > 0 && performance.now() - pressedAt.current < PRESS_CLICK_MS) return;
            stop();
          }}
        >
          {/* The name is the visible words; the shortcut is announced through aria-keyshortcuts. */}
          Emergency stop{' '}
          <span className="estop__shortcut" aria-hidden="true">
            {ESTOP_SHORTCUT.label}
          </span>
        </button>
      )}
      <span role="status" className="visually-hidden">
        {outcome ?? ''}
      </span>
    </div>
  );
}
