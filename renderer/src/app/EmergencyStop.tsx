import { useCallback, useLayoutEffect, useState } from 'react';
import { ESTOP_SHORTCUT } from '../../../engine/machine/door.ts';
import { emergencyStop, isConnected, useMachineDoor, useMachineState } from '../lib/machine-door.ts';

/**
 * "Emergency stop", on every screen while a machine is connected. A click or the shortcut sends
 * M112 to the machine process's own door, not through the core. Not offered to a browser the
 * server refuses control (a signed-in LAN viewer sees the machine's state): a stop button that
 * cannot stop anything must not look like one.
 */
export function EmergencyStop() {
  const state = useMachineState();
  const door = useMachineDoor();
  const machineDoor = door?.url ?? null;
  const [outcome, setOutcome] = useState<string | null>(null);
  const visible = state !== null && isConnected(state) && door?.control !== false;

  const stop = useCallback(() => {
    emergencyStop(machineDoor).then(
      (answer) => setOutcome(answer.sent ? 'Emergency stop sent' : 'No machine was connected'),
      (error: Error) => setOutcome(`Emergency stop failed: ${error.message}`),
    );
  }, [machineDoor]);

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
          aria-label="Emergency stop"
          aria-keyshortcuts={ESTOP_SHORTCUT.aria}
          onClick={stop}
        >
          Emergency stop <kbd>{ESTOP_SHORTCUT.label}</kbd>
        </button>
      )}
      <span role="status" className="visually-hidden">
        {outcome ?? ''}
      </span>
    </div>
  );
}
