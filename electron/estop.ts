// The desktop app's emergency stop: a global shortcut (it works while another window has the focus)
// and a menu item for the application menu. Both go straight to the machine process's door, found
// in `<data dir>/machine.json` at the moment of the press, so neither waits on the core embedded in
// this process (a busy or stuck core event loop does not delay a child process's door) and both
// still work after the machine process was restarted on another port.
import type { GlobalShortcut, MenuItemConstructorOptions } from 'electron';
import { ESTOP_SHORTCUT } from '../engine/machine/door.ts';
import {
  type EstopResult,
  postEmergencyStop,
  readMachineFileSync,
} from '../server/machine/process/machine-file.ts';

export type EstopOutcome = EstopResult | { sent: false; detail: string };

/** Sends the e-stop to the data dir's machine process; never throws. */
export function emergencyStopper(dataDir: string): () => Promise<EstopOutcome> {
  return async () => {
    const record = readMachineFileSync(dataDir);
    if (!record) return { sent: false, detail: 'No machine process is running' };
    try {
      return await postEmergencyStop(record.url);
    } catch (error) {
      return { sent: false, detail: `The machine process did not answer: ${(error as Error).message}` };
    }
  };
}

/**
 * The "Emergency Stop" item for the application menu (its accelerator is shown; the global shortcut
 * below does the work, so the menu does not register it a second time).
 */
export function estopMenuItem(stop: () => unknown): MenuItemConstructorOptions {
  return {
    id: 'emergency-stop',
    label: 'Emergency Stop',
    accelerator: ESTOP_SHORTCUT.accelerator,
    registerAccelerator: false,
    click: () => void stop(),
  };
}

/**
 * Registers the system-wide shortcut; returns the function that removes it, or undefined when
 * another application already holds the key combination (then only the menu and the button work).
 */
export function registerEstopShortcut(
  shortcuts: Pick<GlobalShortcut, 'register' | 'unregister'>,
  stop: () => unknown,
): (() => void) | undefined {
  const registered = shortcuts.register(ESTOP_SHORTCUT.accelerator, () => void stop());
  if (!registered) return undefined;
  return () => shortcuts.unregister(ESTOP_SHORTCUT.accelerator);
}
