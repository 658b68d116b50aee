// The machine panel in a LAN browser (not on the workstation): it shows why its controls are off,
// and the server itself refuses control from the LAN with 403. Tests reach only loopback, so the
// LAN browser comes through a reverse proxy on the workstation (API_TRUST_PROXY_HOPS=1, loopback is
// a trusted proxy by default) that names the LAN client in X-Forwarded-For: the core judges that
// client, exactly as for a browser on the shop's network.
import { expect, test } from '@playwright/test';
import { MACHINE_ROUTES } from '../engine/machine/contract.ts';
import { type Core, startCore } from '../server/testing/core.ts';

const LAN_CLIENT = '192.168.1.20';
test.use({ extraHTTPHeaders: { 'x-forwarded-for': LAN_CLIENT } });

let core: Core;
let lan: string;
test.beforeAll(async () => {
  core = await startCore({ API_TRUST_PROXY_HOPS: '1' });
  lan = core.lan;
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
