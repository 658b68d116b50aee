// §19 at rest, over one whole datasource-security run against a real workstation logging at trace:
// a BEARER credential, service-account tokens issued, used and rotated, session tokens minted as a
// user, an anonymous LINK viewer and a service account, and introspected over the internal door.
// Afterwards the database file and its WAL hold no credential secret and no service-account secret,
// and the captured logs hold none of those, no JWT and not the gateway service token.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callDoor } from '../testing/gateway-door.ts';
import { dataOf } from '../testing/graphql.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';

const BEARER_SECRET = 'plc-bearer-SECRET-83c1d0';

let f: Fixture;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  f = await startFixture(
    {},
    { logger: pino({ level: 'trace' }, sink), dashboardApi: { serviceAccounts: undefined } },
  );
});

afterAll(() => f?.ws.dispose());

it('keeps secrets, service-account tokens and JWTs out of the database file, its WAL and the logs', async () => {
  const admin = (query: string, variables: Record<string, unknown> = {}) => f.call(query, variables, 'admin');
  const credential = dataOf<{ _id: string }>(
    await admin(
      'mutation($i: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $i) { _id } }',
      { i: { name: 'PLC', type: 'BEARER', secret: { token: BEARER_SECRET }, allowPublicUse: true } },
    ),
    'adminCreateCredentialProfile',
  );
  dataOf(
    await admin('mutation { setAuthPolicy(editorCanPublish: true) { editorCanPublish } }'),
    'setAuthPolicy',
  );
  const dashboard = dataOf<{ _id: string; shareToken: string }>(
    await admin('mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }', {
      i: {
        title: 'Line',
        version: 'towpath 0.1.0',
        visibility: 'LINK',
        datasources: [
          {
            id: 'temp',
            title: 'Temperature',
            type: 'http',
            settings: { url: 'http://10.0.0.9/t', credentialProfileId: credential._id },
          },
        ],
      },
    }),
    'createDashboard',
  );
  const account = dataOf<{ _id: string }>(
    await admin(
      'mutation { adminCreateServiceAccount(input: { name: "Kiosk", scopes: [DATASOURCE_MINT, OPS_READ] }) { _id } }',
    ),
    'adminCreateServiceAccount',
  );
  const first = dataOf<{ token: string; tokenRecord: { _id: string } }>(
    await admin(
      'mutation($id: ID!) { adminIssueServiceAccountToken(serviceAccountId: $id) { token tokenRecord { _id } } }',
      { id: account._id },
    ),
    'adminIssueServiceAccountToken',
  );
  const second = dataOf<{ token: string }>(
    await admin('mutation($id: ID!) { adminRotateServiceAccountToken(_id: $id) { token } }', {
      id: first.tokenRecord._id,
    }),
    'adminRotateServiceAccountToken',
  );
  const mint = async (as: Parameters<Fixture['call']>[2], shareToken?: string) =>
    dataOf<{ token: string }>(
      await f.call(
        'mutation($d: ID!, $t: String) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: "temp", shareToken: $t) { token } }',
        { d: dashboard._id, t: shareToken },
        as,
      ),
      'mintDatasourceSessionToken',
    ).token;
  const sessionTokens = [
    await mint('admin'),
    await mint('anonymous', dashboard.shareToken),
    await mint({ token: second.token }, dashboard.shareToken),
  ];
  // A rejected (old) token and a used one both pass through the authentication path.
  await f.call('{ adminRuntimeMetrics { collectedAt } }', {}, { token: first.token });
  await f.call('{ adminRuntimeMetrics { collectedAt } }', {}, { token: second.token });
  const serviceToken = f.ws.dashboardApi.secrets.GATEWAY_SERVICE_TOKEN;
  for (const sessionToken of sessionTokens) {
    const answer = await callDoor(f.url, 'datasource-introspect', {
      token: serviceToken,
      body: { sessionToken },
    });
    expect(answer.status).toBe(200);
    expect((answer.body.intent as { headers: Record<string, string> }).headers.Authorization).toBe(
      `Bearer ${BEARER_SECRET}`,
    );
  }
  // A wrong service token is logged as nothing more than a 401.
  await callDoor(f.url, 'revoked-tokens', { token: `${serviceToken}-wrong` });

  const secretOf = (token: string) => token.split('.')[1] as string;
  const dataDir = join(f.ws.root, 'data');
  const bytes = Buffer.concat(
    await Promise.all(
      ['towpath.db', 'towpath.db-wal'].map((file) =>
        readFile(join(dataDir, file)).catch(() => Buffer.alloc(0)),
      ),
    ),
  );
  expect(bytes.length).toBeGreaterThan(0);
  for (const secret of [
    BEARER_SECRET,
    first.token,
    second.token,
    secretOf(first.token),
    secretOf(second.token),
  ])
    expect(bytes.includes(Buffer.from(secret)), 'found in the database').toBe(false);

  const logs = logLines.join('');
  expect(logLines.length).toBeGreaterThan(0);
  const userJwts = Object.values(f.tokens);
  for (const secret of [
    BEARER_SECRET,
    secretOf(first.token),
    secretOf(second.token),
    serviceToken,
    ...sessionTokens,
    ...userJwts,
  ])
    expect(logs.includes(secret), 'found in the logs').toBe(false);
  // No JWT of any kind: three base64url parts starting with an encoded JSON header.
  expect(logs).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
});
