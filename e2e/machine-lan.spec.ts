// The machine panel in a LAN browser (not on the workstation): signed in, it shows the state and
// progress of a running job and why its controls are off; without a session it is told to sign in;
// and the server itself refuses control from the LAN with 403. Tests reach only loopback, so the
// LAN browser comes through a reverse proxy on the workstation (API_TRUST_PROXY_HOPS=1, loopback is
// a trusted proxy by default) that names the LAN client in X-Forwarded-For: the core judges that
// client, exactly as for a browser on the shop's network.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { MACHINE_ROUTES } from '../engine/machine/contract.ts';
import { prepareProgram } from '../engine/machine/program.ts';
import { REFERENCE_ROOT } from '../reference/paths.ts';
import { attachFakeMarlin, type FakeMarlinOnPort } from '../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../server/machine/testing/pty-pair.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { seriousAxeViolations } from './support/axe.ts';

const LAN_CLIENT = '192.168.1.20';
const ADMIN = { email: 'operator@example.com', password: 'Winding-2026-safe!' };
const PROGRAM = readFileSync(join(REFERENCE_ROOT, 'sized_simple_cylinder', 'expected-xab.gcode'), 'utf8');
const TOTAL = prepareProgram(PROGRAM).total;

const CONTROL_REASON =
  'Machine control is only allowed on the workstation itself: this browser may watch the machine but not move it.';
const CONTROLS = ['Connect', 'Disconnect', 'Start', 'Pause job', 'Resume job', 'Cancel job'];

// bypassCSP: axe-core is injected into the page as a script.
test.use({ extraHTTPHeaders: { 'x-forwarded-for': LAN_CLIENT }, bypassCSP: true });

let core: Core;
let lan: string;
let pair: PtyPair;
let marlin: FakeMarlinOnPort;
/**
 * A client on the workstation itself, through the same proxy (which names it 127.0.0.1): it may
 * control the machine. Plain fetch, since Playwright's request contexts carry the LAN header.
 */
async function workstation(route: keyof typeof MACHINE_ROUTES, body?: unknown): Promise<Response> {
  return fetch(`${lan}${MACHINE_ROUTES[route]}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'x-forwarded-for': '127.0.0.1',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

test.beforeAll(async () => {
  core = await startCore({
    API_TRUST_PROXY_HOPS: '1',
    CREATE_ADMIN: 'true',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  lan = core.lan;
  pair = await createPtyPair();
  // A slow controller, so the job is still running while the LAN browser watches it.
  marlin = await attachFakeMarlin(pair.far, { ackDelayMs: 15 });
});
test.afterAll(async () => {
  await workstation('cancel', {}).catch(() => {});
  await workstation('disconnect', {}).catch(() => {});
  await marlin?.close();
  await pair?.dispose();
  expect(await core.stop()).toBe(0);
});

/** Signs in through the GraphQL API as the LAN browser would, and returns the session JWT. */
async function signIn(request: APIRequestContext): Promise<string> {
  const response = await request.post(`${lan}/graphql`, {
    data: {
      query:
        'mutation SignIn($email: String!, $password: String!) { authUser(email: $email, password: $password) { token } }',
      variables: ADMIN,
    },
  });
  expect(response.status()).toBe(200);
  const body = await response.json();
  expect(body.errors).toBeUndefined();
  return body.data.authUser.token as string;
}

async function expectControlsOff(page: Page): Promise<void> {
  await expect(page.getByTestId('control-disabled')).toHaveText(CONTROL_REASON);
  for (const name of CONTROLS) await expect(page.getByRole('button', { name, exact: true })).toBeDisabled();
  await expect(page.getByRole('combobox', { name: 'Serial port' })).toBeDisabled();
}

test('a LAN browser without a session is told to sign in, and cannot read the machine', async ({
  page,
  request,
}) => {
  await page.goto(`${lan}/winding`);
  await expect(page.getByTestId('watch-disabled')).toContainText('Sign in to watch the machine');
  await expect(page.getByTestId('machine-state')).toContainText('State: unknown');
  await expectControlsOff(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  for (const route of ['status', 'events'] as const) {
    const response = await request.get(`${lan}${MACHINE_ROUTES[route]}`);
    expect(response.status(), route).toBe(401);
  }
});

test('a signed-in LAN browser watches a running job, with its controls off; the server refuses control with 403', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const token = await signIn(request);
  // The sign-in screen keeps the session here; the page reads it from its first request on.
  await page.addInitScript((value) => localStorage.setItem('towpath.session', value), token);

  // The workstation connects and starts the job.
  const connect = await workstation('connect', { port: pair.near, baudRate: 115200 });
  expect(connect.status, await connect.text()).toBe(200);
  await expect
    .poll(async () => (await (await workstation('status')).json()).state, {
      timeout: 20_000,
    })
    .toBe('ready');
  const job = await workstation('job', { gcode: PROGRAM });
  expect(job.status, await job.text()).toBe(202);

  await page.goto(`${lan}/winding`);
  const state = page.getByTestId('machine-state');
  await expect(state).toHaveAttribute('data-state', 'streaming', { timeout: 20_000 });
  await expect(page.getByTestId('watch-disabled')).toHaveCount(0);
  // Progress moves while the browser watches: it comes over the events stream with the bearer.
  const progress = page.getByRole('progressbar', { name: 'Job progress' });
  const first = Number(await progress.getAttribute('value'));
  await expect.poll(async () => Number(await progress.getAttribute('value'))).toBeGreaterThan(first);
  await expect(page.getByText(`of ${TOTAL.toLocaleString('en')} lines sent`)).toBeVisible();
  await expectControlsOff(page);
  await expect(page.getByTestId('job-line')).toContainText(/^Line \d+: /);
  // Nor is an e-stop offered that the server would refuse: it is the workstation's.
  await expect(page.getByRole('button', { name: 'Emergency stop' })).toHaveCount(0);
  expect(await seriousAxeViolations(page)).toEqual([]);

  // The bearer opens only reading: every control route answers 403 to this LAN client, signed in or not.
  const bearer = { authorization: `Bearer ${token}` };
  expect((await request.get(`${lan}${MACHINE_ROUTES.status}`, { headers: bearer })).status()).toBe(200);
  for (const route of ['connect', 'job', 'pause', 'resume', 'cancel', 'estop', 'disconnect'] as const) {
    for (const headers of [{}, bearer]) {
      const response = await request.post(`${lan}${MACHINE_ROUTES[route]}`, { data: {}, headers });
      expect(response.status(), `${route} ${JSON.stringify(Object.keys(headers))}`).toBe(403);
    }
  }
  // Still streaming: nothing the LAN client sent reached the machine.
  const status = await (await workstation('status')).json();
  expect(status.state).toBe('streaming');
  expect(marlin.fake.unframed).not.toContain('M112');
});
