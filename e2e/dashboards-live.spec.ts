// Live dashboards in Chromium against one real core: an MQTT datasource fed by a real Mosquitto on a
// loopback port (allowed for egress on that port only), and the first admin's Winder dashboard
// following a job the fake Marlin runs on a socat pseudo-terminal pair. Values travel the whole way:
// broker or machine process → realtime gateway → the viewer's socket → widgets.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import mqtt from 'mqtt';
import { MACHINE_ROUTES } from '../engine/machine/contract.ts';
import { prepareProgram } from '../engine/machine/program.ts';
import { REFERENCE_ROOT } from '../reference/paths.ts';
import { attachFakeMarlin, type FakeMarlinOnPort } from '../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../server/machine/testing/pty-pair.ts';
import { gql } from '../server/testing/graphql.ts';
import {
  createMqttDashboard,
  delayUntilShown,
  LIVE_TOPIC,
  LIVE_WIDGET,
  shownAs,
} from '../server/testing/live-dashboard.ts';
import { type Mosquitto, startMosquitto } from '../server/testing/mosquitto.ts';
import { ADMIN_EMAIL, type Core, PASSWORD, signIn, startSignedInCore } from './support/towpath-core.ts';

const PROGRAM = readFileSync(join(REFERENCE_ROOT, 'sized_simple_cylinder', 'expected-xab.gcode'), 'utf8');
const TOTAL = prepareProgram(PROGRAM).total;

let broker: Mosquitto;
let core: Core;
let publisher: mqtt.MqttClient;
let pair: PtyPair | undefined;
let marlin: FakeMarlinOnPort | undefined;
let token: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  broker = await startMosquitto();
  // The broker is on loopback, which the gateway refuses unless allowed — on its port only.
  core = await startSignedInCore({ GATEWAY_EGRESS_ALLOW: `loopback:${broker.port}` });
  publisher = await mqtt.connectAsync(broker.url, { reconnectPeriod: 200 });
  const signedIn = await gql<{ authUser: { token: string } }>(
    core.url,
    'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }',
    { variables: { e: ADMIN_EMAIL, p: PASSWORD } },
  );
  token = signedIn.data?.authUser.token as string;
  expect(token, signedIn.raw).toBeTruthy();
});

test.afterAll(async () => {
  if (pair) {
    await machine('cancel', {}).catch(() => {});
    await machine('disconnect', {}).catch(() => {});
  }
  await marlin?.close();
  await pair?.dispose();
  await publisher?.endAsync(true);
  await core?.stop();
  await broker?.stop();
});

/** A machine route called from the workstation itself (loopback), as the machine panel would. */
async function machine(route: keyof typeof MACHINE_ROUTES, body?: unknown): Promise<Response> {
  return fetch(`${core.url}${MACHINE_ROUTES[route]}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

test('a dashboard with an MQTT datasource shows what is published to the broker', async ({ page }) => {
  const board = await createMqttDashboard(core.url, token, broker.url);
  // A retained value reaches a subscriber as soon as its subscription is in place.
  await publisher.publishAsync(LIVE_TOPIC, JSON.stringify({ celsius: 20 }), { qos: 1, retain: true });

  await signIn(page, core.url, ADMIN_EMAIL);
  await page.goto(`${core.url}/dashboards/${board.dashboardId}`);
  const widget = page.getByRole('region', { name: LIVE_WIDGET.title });
  await expect(widget).toContainText('20.0 °C', { timeout: 20_000 });

  // Each new value, published after the stream is flowing, is measured from publish to screen.
  const delays: number[] = [];
  for (const celsius of [21.5, 22.5, 23.5, 24.5, 25.5]) {
    delays.push(
      await delayUntilShown(page, LIVE_WIDGET.id, shownAs(celsius), async () => {
        await publisher.publishAsync(LIVE_TOPIC, JSON.stringify({ celsius }), { qos: 0 });
      }),
    );
  }
  await expect(widget).toContainText('25.5 °C');
  // Reported, not asserted: timing depends on the machine's load (`npm run bench` owns targets).
  const sorted = [...delays].sort((a, b) => a - b);
  const figure = {
    name: 'mqtt publish to widget',
    unit: 'ms',
    median: Math.round(sorted[2] ?? 0),
    max: Math.round(sorted[4] ?? 0),
    samples: delays.map(Math.round),
  };
  console.log(JSON.stringify(figure));
  test.info().annotations.push({ type: 'mqtt-delay-ms', description: JSON.stringify(figure) });

  // A shop-floor screen opened by link, signed out, gets the stream through its share token too.
  const anonymous = await page.context().browser()?.newContext();
  const tv = await anonymous?.newPage();
  if (!tv) throw new Error('no second browser context');
  await tv.goto(`${core.url}/s/${board.shareToken}`);
  const tvWidget = tv.getByRole('region', { name: LIVE_WIDGET.title });
  await expect(tvWidget).toContainText('25.5 °C', { timeout: 20_000 });
  await publisher.publishAsync(LIVE_TOPIC, JSON.stringify({ celsius: 30 }), { qos: 0 });
  await expect(tvWidget).toContainText('30.0 °C', { timeout: 20_000 });
  await expect(widget).toContainText('30.0 °C', { timeout: 20_000 });

  // Rotating the link revokes the screen's stream in the gateway: the page re-reads its dashboard at
  // once (not at its 30 s re-read), finds the old link refused and says so; the signed-in view goes on.
  const rotated = await gql(
    core.url,
    'mutation($id: ID!) { rotateDashboardShareToken(_id: $id) { shareToken } }',
    { token, variables: { id: board.dashboardId } },
  );
  expect(rotated.errors, rotated.raw).toBeUndefined();
  await expect(tv.getByText('This dashboard is no longer available')).toBeVisible({ timeout: 15_000 });
  await expect(tv.getByRole('region', { name: LIVE_WIDGET.title })).toHaveCount(0);
  await publisher.publishAsync(LIVE_TOPIC, JSON.stringify({ celsius: 31 }), { qos: 0 });
  await expect(widget).toContainText('31.0 °C', { timeout: 20_000 });
  await anonymous?.close();
});

test('a live datasource added in the editor waits for the save, then connects without a reload', async ({
  page,
}) => {
  await signIn(page, core.url, ADMIN_EMAIL);
  await page.goto(`${core.url}/dashboards`);
  await page.getByRole('link', { name: 'Resin line' }).click();
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('button', { name: 'Add datasource' }).click();
  const sources = page.getByRole('dialog', { name: 'Datasources' });
  await sources.getByLabel('Datasource title').fill('Second bath');
  await sources.getByLabel('Datasource type').selectOption('mqtt');
  await sources.getByLabel('Broker profile').selectOption({ label: 'Shop broker' });
  await sources.getByLabel('Topic').fill(LIVE_TOPIC);
  await sources.getByRole('button', { name: 'Apply datasource' }).click();
  // Not saved, so not known to the gateway: the editor says what to do, not DATASOURCE_NOT_FOUND.
  const entry = sources.getByRole('listitem').filter({ hasText: 'Second bath' });
  await expect(entry).toContainText('Save the dashboard to connect this datasource');
  await sources.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(/Saved revision \d+/)).toBeVisible();
  await publisher.publishAsync(LIVE_TOPIC, JSON.stringify({ celsius: 40 }), { qos: 1, retain: true });
  await page.getByRole('button', { name: 'Datasources' }).click();
  await expect(entry).toContainText('Second bath (mqtt) · connected', { timeout: 20_000 });
  await expect(entry).not.toContainText('DATASOURCE_NOT_FOUND');
});

test('the Winder dashboard follows a job the fake Marlin runs', async ({ page }) => {
  test.setTimeout(120_000);
  pair = await createPtyPair();
  // A slow controller, so the job is still running while the dashboard watches it.
  marlin = await attachFakeMarlin(pair.far, { ackDelayMs: 15 });

  await signIn(page, core.url, ADMIN_EMAIL);
  await page.getByRole('link', { name: 'Winder' }).click();
  const connection = page.getByRole('region', { name: 'Connection', exact: true });
  const jobState = page.getByRole('region', { name: 'Job state', exact: true });
  // The machine datasource answers at once with the current status: nothing connected yet.
  await expect(connection).toContainText('Disconnected', { timeout: 20_000 });

  const connect = await machine('connect', { port: pair.near, baudRate: 115200 });
  expect(connect.status, await connect.text()).toBe(200);
  await expect(connection).toContainText('Connected', { timeout: 20_000 });
  await expect(connection).not.toContainText('Disconnected');

  const job = await machine('job', { gcode: PROGRAM });
  expect(job.status, await job.text()).toBe(202);
  await expect(jobState).toContainText('streaming', { timeout: 20_000 });

  // Progress moves while the dashboard watches: the gauge, the lines sent and the remaining time.
  const progress = page.getByRole('region', { name: 'Progress', exact: true });
  const percent = async () =>
    Number.parseFloat((await progress.textContent())?.replace('Progress', '') ?? '');
  await expect.poll(percent, { timeout: 30_000 }).toBeGreaterThan(0);
  const first = await percent();
  await expect.poll(percent, { timeout: 30_000 }).toBeGreaterThan(first);
  const lines = page.getByRole('region', { name: 'Lines sent', exact: true });
  await expect(lines).toContainText(new RegExp(`\\d+ / ${TOTAL}`));
  const sent = async () => Number((await lines.textContent())?.match(/(\d+) \//)?.[1] ?? 0);
  const before = await sent();
  await expect.poll(sent, { timeout: 30_000 }).toBeGreaterThan(before);
  await expect(page.getByRole('region', { name: 'Remaining time', exact: true })).not.toContainText('—', {
    timeout: 30_000,
  });

  // Cancelled from the workstation, the dashboard says so.
  expect((await machine('cancel', {})).status).toBe(200);
  await expect(jobState).toContainText('cancelled', { timeout: 20_000 });
});
