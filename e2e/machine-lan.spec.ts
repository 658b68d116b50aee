// The machine panel in a LAN browser (not loopback): it shows why its controls are off, and the
// server itself refuses control from the LAN with 403.
import { networkInterfaces } from 'node:os';
import { expect, test } from '@playwright/test';
import { MACHINE_ROUTES } from '../engine/machine/contract.ts';
import { type Core, startCore } from '../server/testing/core.ts';

/** This machine's first non-loopback IPv4 address: what a LAN browser would connect to. */
function lanAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? [])
      if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  throw new Error('this machine has no non-loopback IPv4 address to test a LAN browser with');
}

let core: Core;
let lan: string;
test.beforeAll(async () => {
  const address = lanAddress();
  core = await startCore({ HOST: address });
  lan = core.lan.replace(/\/\/[^:/]+/, `//${address}`);
});
test.afterAll(async () => {
  expect(await core.stop()).toBe(0);
});

test('a LAN browser sees why the machine controls are off, and the server refuses control with 403', async ({
  page,
  request,
}) => {
  await page.goto(`${lan}/winding`);
  await expect(page.getByTestId('control-disabled')).toHaveText(
    'Machine control is only allowed on the workstation itself: this browser may watch the machine but not move it.',
  );
  for (const name of ['Connect', 'Disconnect', 'Start', 'Pause job', 'Resume job', 'Cancel job']) {
    await expect(page.getByRole('button', { name, exact: true })).toBeDisabled();
  }
  await expect(page.getByRole('combobox', { name: 'Serial port' })).toBeDisabled();

  for (const route of ['connect', 'job', 'pause', 'resume', 'cancel', 'estop'] as const) {
    const response = await request.post(`${lan}${MACHINE_ROUTES[route]}`, { data: {} });
    expect(response.status(), route).toBe(403);
  }
});
