// The shop-fleet dashboard in Chromium: three winders publish to one Mosquitto built from
// docs/fleet.md's recipe (TLS, passwords, ACL, persistence); the first is also the workstation whose
// LAN door shows the shipped dashboard, imported as a shop would import it, through the gateway with
// the read-only viewer's credential. Winder 01 streams a job to a fake Marlin on a pty, winder 02 sits
// connected and idle, winder 03 is killed and turns offline on screen; a zero-length retained publish
// then removes its row.
import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import mqtt from 'mqtt';
import { MACHINE_ROUTES } from '../engine/machine/contract.ts';
import { type RecipeBroker, startRecipeBroker } from '../server/fleet/testing/recipe-broker.ts';
import { startWinder, type Winder, winderEnv } from '../server/fleet/testing/winder.ts';
import { gql } from '../server/testing/graphql.ts';
import { signIn as signInForToken } from '../server/testing/graphql-fixture.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { FakeControllers } from './support/fake-controllers.ts';
import { readmeScreenshot } from './support/screenshots.ts';
import { ADMIN_EMAIL, type Core, PASSWORD, signIn, startSignedInCore } from './support/towpath-core.ts';

let broker: RecipeBroker;
let core: Core;
let token: string;
const winders: Winder[] = [];
const controllers = new FakeControllers();

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
  // The dashboard's workstation is winder 1; the broker on this PC is loopback, allowed on its port.
  [core] = await Promise.all([
    startSignedInCore({ GATEWAY_EGRESS_ALLOW: `loopback:${broker.port}`, ...winderEnv('w01', broker) }),
    startWinder('w02', broker).then((w) => winders.push(w)),
    startWinder('w03', broker).then((w) => winders.push(w)),
  ]);
  token = await signInForToken(core.url, ADMIN_EMAIL, PASSWORD);
});

test.afterAll(async () => {
  await Promise.all(winders.map((winder) => winder.dispose()));
  // The job may still run: cancelled so the core stops cleanly, then its controller goes.
  if (core) await machine(core.url, 'cancel', {}).catch(() => undefined);
  await core?.stop();
  await controllers.dispose();
  await broker?.stop();
});

/** A machine-door request on a workstation's LAN door, from this PC (loopback may control). */
async function machine(url: string, route: keyof typeof MACHINE_ROUTES, body: unknown, query = '') {
  const response = await fetch(`${url}${MACHINE_ROUTES[route]}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.text();
  if (response.status >= 300) throw new Error(`${route} answered ${response.status}: ${answer}`);
}

/** A fake Marlin on a fresh pty pair, connected to the workstation at `url`. */
async function plugIn(url: string, ackDelayMs: number): Promise<void> {
  const { pair } = await controllers.add({ ackDelayMs });
  await machine(url, 'connect', { port: pair.near, baudRate: 250000 });
}

/** A vessel's program in eight hoop and helical layers; at 25 ms a line it runs about a minute. */
function vesselProgram(lines: number, layers: number): string {
  const out: string[] = [];
  const perLayer = lines / layers;
  for (let i = 0; i < lines; i++) {
    const layer = Math.floor(i / perLayer);
    if (i % perLayer === 0) out.push(`; Layer ${layer + 1} of ${layers}: ${layer % 2 ? 'helical' : 'hoop'}`);
    out.push(`G1 X${(i % 200) + 1} Y${(i * 7) % 360} F6000`);
  }
  return `${out.join('\n')}\n`;
}

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
  test.setTimeout(150_000);
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

  // A working shop: winder 01 winds a vessel, winder 02 has its controller and waits.
  const w02 = winders.find((w) => w.id === 'w02') as Winder;
  await plugIn(core.url, 25);
  await plugIn(w02.url, 0);
  await expect(row('Winder 02')).toContainText('(idle)', { timeout: 5000 });
  await machine(core.url, 'job', { gcode: vesselProgram(2400, 8) }, '?name=tank-120L-type-IV.gcode');
  await expect(row('Winder 01')).toContainText('(running)', { timeout: 5000 });
  await expect(row('Winder 01')).toContainText('tank-120L-type-IV.gcode');

  // A winder's core is killed: the broker's will reaches the screen within 2 s.
  winders.find((w) => w.id === 'w03')?.run.child.kill('SIGKILL');
  await expect(row('Winder 03')).toContainText('(offline)', { timeout: 2000 });
  const tableRow = (name: string) => table.getByRole('row').filter({ hasText: name });
  await expect(tableRow('Winder 03')).toContainText('offline');
  await expect(row('Winder 02')).toContainText('(idle)');

  // Well into the job before the picture: its progress has moved and it is still running.
  const progress = tableRow('Winder 01').getByRole('cell').nth(3);
  await expect
    .poll(async () => Number.parseFloat((await progress.textContent()) ?? ''), { timeout: 60_000 })
    .toBeGreaterThanOrEqual(35);
  await expect(tableRow('Winder 01')).toContainText('running');
  await expect(row('Winder 01')).toContainText('(running)');
  await page.screenshot({ path: readmeScreenshot('shop-fleet.png'), fullPage: true });

  // Decommissioned: a zero-length retained publish on its topic removes the row from the view.
  const admin = await mqtt.connectAsync(broker.url, {
    username: 'w03',
    password: broker.passwords.w03,
    ca: readFileSync(broker.caFile),
    reconnectPeriod: 0,
  });
  await admin.publishAsync('towpath/v1/w03/state', '', { qos: 1, retain: true });
  await admin.endAsync();
  await expect(status.getByRole('listitem')).toHaveCount(2, { timeout: 5000 });
  await expect(row('Winder 03')).toHaveCount(0);
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
  await expect(figure('State topic')).toContainText('towpath/v1/w01/state');
  await expect(figure('Last error')).toContainText('none');
  await expect(figure('Conflict')).toContainText('none');
  await expect(figure('Last publish')).not.toContainText('never');
  await expect(page.getByText('Off: set OPCUA_PORT')).toBeVisible();
  expect(await seriousAxeViolations(page)).toEqual([]);
});
