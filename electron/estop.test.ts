// The desktop app's e-stop (shortcut and menu item) against a real workstation's machine process
// and the fake Marlin on a pseudo-terminal pair; Electron itself is stood in for.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ESTOP_SHORTCUT } from '../engine/machine/door.ts';
import { attachFakeMarlin } from '../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../server/machine/testing/pty-pair.ts';
import { makeTempDir, startTestWorkstation } from '../server/testing/workstation.ts';
import { emergencyStopper, estopMenuItem, registerEstopShortcut } from './estop.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

describe('desktop e-stop', () => {
  it('sends M112 from the global shortcut and the menu item, through machine.json', async () => {
    const pair = await createPtyPair();
    cleanups.push(() => pair.dispose());
    const onPort = await attachFakeMarlin(pair.far, { ackDelayMs: 5 });
    cleanups.push(() => onPort.close());
    const ws = await startTestWorkstation({}, { machine: { timings: { bootIdleMs: 50 } } });
    cleanups.push(() => ws.dispose());

    const stop = emergencyStopper(ws.dataDir);
    const registered: Record<string, () => void> = {};
    const shortcuts = {
      register: vi.fn((accelerator: string, callback: () => void) => {
        registered[accelerator] = callback;
        return true;
      }),
      unregister: vi.fn(),
    };
    const unregister = registerEstopShortcut(shortcuts, stop);
    expect(shortcuts.register).toHaveBeenCalledWith(ESTOP_SHORTCUT.accelerator, expect.any(Function));

    await ws.machine.connect(pair.near, 250000);
    await ws.machine.startJob({ gcode: Array.from({ length: 5000 }, (_, i) => `G0 X${i}`).join('\n') });
    await onPort.fake.until(() => onPort.fake.commands.length > 10, 10_000);
    registered[ESTOP_SHORTCUT.accelerator]?.();
    await onPort.fake.until(() => onPort.fake.unframed.includes('M112'), 5000, 'M112');
    await expect.poll(() => ws.machine.status().state).toBe('error');

    // The menu item does the same; with nothing connected any more, it says so.
    const item = estopMenuItem(stop);
    expect(item).toMatchObject({ label: 'Emergency Stop', accelerator: ESTOP_SHORTCUT.accelerator });
    expect(await stop()).toEqual({ sent: false, state: 'error' });
    unregister?.();
    expect(shortcuts.unregister).toHaveBeenCalledWith(ESTOP_SHORTCUT.accelerator);
    expect(registerEstopShortcut({ register: () => false, unregister: vi.fn() }, stop)).toBeUndefined();
  });

  it('says so when no machine process runs', async () => {
    expect(await emergencyStopper(await makeTempDir())()).toEqual({
      sent: false,
      detail: 'No machine process is running',
    });
  });
});
