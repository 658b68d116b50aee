// The shop-fleet dashboard in Chromium: three winders publish to one Mosquitto built from
// docs/fleet.md's recipe (TLS, passwords, ACL, persistence); the third is also the workstation whose
// LAN door shows the shipped dashboard, imported as a shop would import it, through the gateway with
// the read-only viewer's credential. A killed winder turns offline on screen, a zero-length retained
// publish removes its row.
import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import mqtt from 'mqtt';
import { type RecipeBroker, startRecipeBroker } from '../server/fleet/testing/recipe-broker.ts';
import { startWinder, type Winder, winderEnv } from '../server/fleet/testing/winder.ts';
import { gql } from '../server/testing/graphql.ts';
import { signIn as signInForToken } from '../server/testing/graphql-fixture.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { readmeScreenshot } from './support/screenshots.ts';
import { ADMIN_EMAIL, type Core, PASSWORD, signIn, startSignedInCore } from './support/towpath-core.ts';

let broker: RecipeBroker;
let core: Core;
let token: string;
const winders: Winder[] = [];

test.describe.configure({ mode: 'serial' });
// axe-core is injected as a script, which the app's CSP would refuse.
test.use({ bypassCSP: true });

async function call<T>(query: string, variables: Record<string, unknown>, field: string): Promise<T> {
  const answer = await gql<Record<string, T>>(core.url, query, { token, variables });
  const data = answer.data?.[field];
  if (!data || answer.errors) throw new Error(`${field} failed: ${answer.raw}`);
  return data;
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  broker = await startRecipeBroker();
  // The dashboard's workstation is winder 3; the broker on this PC is loopback, allowed on its port.
  [core] = await Promise.all([
    startSignedInCore({ GATEWAY_EGRESS_ALLOW: `loopback:${broker.port}`, ...winderEnv('w03', broker) }),
    startWinder('w01', broker).then((w) => winders.push(w)),
    startWinder('w02', broker).then((w) => winders.push(w)),
  ]);
  token = await signInForToken(core.url, ADMIN_EMAIL, PASSWORD);
});

test.afterAll(async () => {
  await Promise.all(winders.map((winder) => winder.dispose()));
  await core?.stop();
  await broker?.stop();
});

/** docs/fleet.md §3: the viewer's credential, a broker profile with the shop CA, the shipped board. */
async function importShopFleet(page: Page): Promise<void> {
  const credential = await call<{ _id: string }>(
    'mutation($i: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $i) { _id } }',
    {
      i: {
        name: 'Fleet viewer',
        type: 'BASIC',
        secret: { username: 'viewer', password: broker.passwords.viewer },
      },
    },
    'adminCreateCredentialProfile',
  );
  const profile = await call<{ _id: string }>(
    'mutation($i: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $i) { _id } }',
    {
      i: {
        name: 'Shop broker',
        brokerUrl: broker.url,
        credentialProfileId: credential._id,
        tls: { ca: readFileSync(broker.caFile, 'utf8') },
        topicAllowlist: ['towpath/v1/#'],
      },
    },
    'adminCreateBrokerProfile',
  );
  await page.goto(`${core.url}/dashboards`);
  await page
    .getByTestId('import-json-file')
    .setInputFiles('resources/dashboards/shop-fleet.towpath-dashboard.json');
  await expect(page.getByRole('heading', { level: 1, name: 'Editing Shop fleet' })).toBeVisible();
  // The shipped file names a broker profile this workstation does not have: pick the shop's.
  await page.getByRole('button', { name: 'Datasources' }).click();
  const sources = page.getByRole('dialog', { name: 'Datasources' });
  await sources.getByRole('button', { name: 'Edit datasource Fleet' }).click();
  await sources.getByLabel('Broker profile').selectOption({ label: 'Shop broker' });
  await sources.getByRole('button', { name: 'Apply datasource' }).click();
  await sources.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(/Saved revision \d+/)).toBeVisible();
  expect(profile._id).toBeTruthy();
  await page.getByRole('button', { name: 'View' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Shop fleet' })).toBeVisible();
}

test('the shop-fleet dashboard lists every winder, live', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, core.url, ADMIN_EMAIL);
  await importShopFleet(page);

  const status = page.getByRole('region', { name: 'Status', exact: true });
  const row = (name: string) => status.getByRole('listitem').filter({ hasText: name });
  await expect(status.getByRole('listitem')).toHaveCount(3, { timeout: 20_000 });
  for (const name of ['Winder 01', 'Winder 02', 'Winder 03'])
    await expect(row(name)).toContainText('(disconnected)');
  const table = page.getByRole('region', { name: 'Every winder', exact: true });
  await expect(table.getByRole('row')).toHaveCount(4);
  expect(await seriousAxeViolations(page)).toEqual([]);

  // A winder's core is killed: the broker's will reaches the screen within 2 s.
  winders.find((w) => w.id === 'w02')?.run.child.kill('SIGKILL');
  await expect(row('Winder 02')).toContainText('(offline)', { timeout: 2000 });
  await expect(table.getByRole('row').filter({ hasText: 'Winder 02' })).toContainText('offline');
  await expect(row('Winder 01')).toContainText('(disconnected)');
  await page.screenshot({ path: readmeScreenshot('shop-fleet.png'), fullPage: true });

  // Decommissioned: a zero-length retained publish on its topic removes the row from the view.
  const admin = await mqtt.connectAsync(broker.url, {
    username: 'w02',
    password: broker.passwords.w02,
    ca: readFileSync(broker.caFile),
    reconnectPeriod: 0,
  });
  await admin.publishAsync('towpath/v1/w02/state', '', { qos: 1, retain: true });
  await admin.endAsync();
  await expect(status.getByRole('listitem')).toHaveCount(2, { timeout: 5000 });
  await expect(row('Winder 02')).toHaveCount(0);
  await expect(table.getByRole('row')).toHaveCount(3);
});

test('Admin → Diagnostics says how this winder reaches the shop broker', async ({ page }) => {
  await signIn(page, core.url, ADMIN_EMAIL);
  await page.goto(`${core.url}/admin/diagnostics`);
  const fleet = page
    .getByRole('heading', { name: 'Shop fleet (MQTT)' })
    .locator('xpath=following-sibling::dl[1]');
  const figure = (label: string) =>
    fleet.locator('div').filter({ has: page.getByText(label, { exact: true }) });
  await expect(figure('Connected')).toContainText('yes');
  await expect(figure('Broker')).toContainText(broker.url);
  await expect(figure('State topic')).toContainText('towpath/v1/w03/state');
  await expect(figure('Last error')).toContainText('none');
  await expect(figure('Conflict')).toContainText('none');
  await expect(figure('Last publish')).not.toContainText('never');
  await expect(page.getByText('Off: set OPCUA_PORT')).toBeVisible();
  expect(await seriousAxeViolations(page)).toEqual([]);
});
