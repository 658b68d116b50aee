// Introspection (spec §13.2) against a real workstation's state, called both as the plain function
// the in-process gateway uses and over HTTP through `/internal/gateway/datasource-introspect` with
// the gateway service token: every status row and the credentials applied to the intent.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callDoor } from '../../testing/gateway-door.ts';
import { dataOf } from '../../testing/graphql.ts';
import { type Fixture, startFixture } from '../../testing/graphql-fixture.ts';
import type { IntrospectionRequest } from './introspect.ts';

let f: Fixture;
let dashboardId: string;
let shareToken: string;
let bearerId: string;
let headerId: string;
let brokerId: string;

const call = (
  query: string,
  variables: Record<string, unknown>,
  as: Parameters<Fixture['call']>[2] = 'admin',
) => f.call(query, variables, as);

async function mint(datasourceId: string, as: Parameters<Fixture['call']>[2] = 'anonymous') {
  const response = await call(
    'mutation($d: ID!, $s: ID!, $t: String) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: $s, shareToken: $t) { token } }',
    { d: dashboardId, s: datasourceId, t: as === 'anonymous' ? shareToken : undefined },
    as,
  );
  return dataOf<{ token: string }>(response, 'mintDatasourceSessionToken').token;
}

let introspect: (request: IntrospectionRequest) => Promise<{ status: number; body: unknown }>;

async function profile(input: Record<string, unknown>) {
  const response = await call(
    'mutation($i: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $i) { _id } }',
    { i: input },
  );
  return dataOf<{ _id: string }>(response, 'adminCreateCredentialProfile')._id;
}

const DATASOURCES = () => [
  {
    id: 'bearer',
    title: 'Bearer',
    type: 'http',
    settings: { url: 'http://10.0.0.2/a', credentialProfileId: bearerId, headers: { authorization: 'old' } },
  },
  {
    id: 'header',
    title: 'Header',
    type: 'sse',
    settings: { url: 'http://10.0.0.2/s', credentialProfileId: headerId },
  },
  {
    id: 'query',
    title: 'Query',
    type: 'websocket',
    settings: {
      url: 'ws://10.0.0.2/w?x=1',
      credentialProfileId: bearerId,
      authPlacement: 'query',
      queryParamName: 'k',
    },
  },
  { id: 'resin', title: 'Resin', type: 'mqtt', settings: { brokerProfileId: brokerId, topic: 'shop/resin' } },
  { id: 'plain', title: 'Plain', type: 'http', settings: { url: 'http://10.0.0.2/p' } },
];

describe.each(['function', 'http'] as const)('introspection called as %s', (via) => {
  beforeAll(async () => {
    // The real service-account check: one test mints as a service account and then deactivates it.
    f = await startFixture({}, { dashboardApi: { serviceAccounts: undefined } });
    const api = f.ws.dashboardApi;
    introspect =
      via === 'function'
        ? (request) => api.gatewayChecks.introspect(request)
        : async (request) => {
            const answer = await callDoor(f.url, 'datasource-introspect', {
              token: api.secrets.GATEWAY_SERVICE_TOKEN,
              body: request,
            });
            return { status: answer.status, body: answer.body };
          };
    bearerId = await profile({
      name: 'Bearer',
      type: 'BEARER',
      secret: { token: 'tok-1' },
      allowPublicUse: true,
    });
    headerId = await profile({
      name: 'Header',
      type: 'HEADER',
      metadata: { headerName: 'X-Key' },
      secret: { headerValue: 'hv' },
      allowPublicUse: true,
    });
    const basicId = await profile({
      name: 'Basic',
      type: 'BASIC',
      secret: { username: 'u', password: 'p' },
      allowPublicUse: true,
    });
    brokerId = dataOf<{ _id: string }>(
      await call('mutation($i: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $i) { _id } }', {
        i: {
          name: 'B',
          brokerUrl: 'mqtts://broker',
          credentialProfileId: basicId,
          allowPublicUse: true,
          topicAllowlist: ['shop/#'],
        },
      }),
      'adminCreateBrokerProfile',
    )._id;
    await call('mutation { setAuthPolicy(editorCanPublish: true) { editorCanPublish } }', {});
    const made = dataOf<{ _id: string; shareToken: string }>(
      await call(
        'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }',
        { i: { title: 'Line', version: 'towpath 0.1.0', visibility: 'LINK', datasources: DATASOURCES() } },
        'editor',
      ),
      'createDashboard',
    );
    dashboardId = made._id;
    shareToken = made.shareToken;
  });

  afterAll(() => f?.ws.dispose());
  beforeEach(() => f.clock.advance(61_000));

  describe('credentials applied', () => {
    it('puts a bearer token in Authorization, replacing a same-named header', async () => {
      const answer = await introspect({
        sessionToken: await mint('bearer'),
        dashboardId,
        datasourceId: 'bearer',
      });
      expect(answer).toEqual({
        status: 200,
        body: {
          dashboardId,
          datasourceId: 'bearer',
          credentialProfileId: bearerId,
          scope: 'datasource:fetch',
          intent: {
            protocol: 'http',
            url: 'http://10.0.0.2/a',
            method: 'GET',
            body: null,
            parser: 'json',
            timeoutMs: 15000,
            headers: { Authorization: 'Bearer tok-1' },
          },
        },
      });
    });

    it('applies a HEADER profile, query placement, and broker credentials', async () => {
      const header = await introspect({ sessionToken: await mint('header') });
      expect((header.body as { intent: { headers: unknown } }).intent.headers).toEqual({ 'X-Key': 'hv' });
      const query = await introspect({ sessionToken: await mint('query') });
      expect((query.body as { intent: { url: string } }).intent.url).toBe('ws://10.0.0.2/w?x=1&k=tok-1');
      const mqtt = await introspect({ sessionToken: await mint('resin') });
      expect((mqtt.body as { intent: unknown }).intent).toMatchObject({
        brokerUrl: 'mqtts://broker',
        tls: null,
        topicAllowlist: ['shop/#'],
        username: 'u',
        password: 'p',
      });
    });
  });

  describe('refusals', () => {
    it('401 for a token not signed with the gateway secret, expired, or of another audience', async () => {
      const forged = await new SignJWT({ dashboardId, datasourceId: 'plain' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('towpath-api')
        .setAudience('towpath-gateway')
        .setIssuedAt(Math.floor(f.clock() / 1000))
        .setExpirationTime(Math.floor(f.clock() / 1000) + 60)
        .sign(new TextEncoder().encode(f.ws.dashboardApi.secrets.JWT_SECRET));
      expect(await introspect({ sessionToken: forged })).toEqual({
        status: 401,
        body: { error: 'Invalid session token' },
      });
      const token = await mint('plain');
      // Introspected once while valid (its signature is then remembered), refused once expired.
      expect((await introspect({ sessionToken: token })).status).toBe(200);
      f.clock.advance(299_000);
      expect((await introspect({ sessionToken: token })).status).toBe(200);
      f.clock.advance(1_000);
      expect((await introspect({ sessionToken: token })).status).toBe(401);
    });

    it('403 when the ids differ', async () => {
      const token = await mint('plain');
      expect(await introspect({ sessionToken: token, datasourceId: 'bearer' })).toEqual({
        status: 403,
        body: { error: 'Token does not match the requested datasource' },
      });
    });

    it('403 "Access revoked" once an ACL entry or a service account is gone', async () => {
      dataOf(
        await call(
          'mutation($id: ID!) { upsertDashboardAccess(_id: $id, email: "viewer@towpath.test", accessLevel: VIEWER) { _id } }',
          { id: dashboardId },
        ),
        'upsertDashboardAccess',
      );
      const viewerToken = await mint('plain', 'viewer');
      expect((await introspect({ sessionToken: viewerToken })).status).toBe(200);
      dataOf(
        await call('mutation($id: ID!, $u: ID!) { revokeDashboardAccess(_id: $id, userId: $u) { _id } }', {
          id: dashboardId,
          u: f.ids.viewer,
        }),
        'revokeDashboardAccess',
      );
      expect(await introspect({ sessionToken: viewerToken })).toEqual({
        status: 403,
        body: { error: 'Access revoked' },
      });

      const account = dataOf<{ _id: string }>(
        await call(
          'mutation { adminCreateServiceAccount(input: { name: "Kiosk", scopes: [DATASOURCE_MINT] }) { _id } }',
          {},
        ),
        'adminCreateServiceAccount',
      );
      const issued = dataOf<{ token: string }>(
        await call('mutation($id: ID!) { adminIssueServiceAccountToken(serviceAccountId: $id) { token } }', {
          id: account._id,
        }),
        'adminIssueServiceAccountToken',
      );
      const saToken = dataOf<{ token: string }>(
        await call(
          'mutation($d: ID!, $t: String) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: "plain", shareToken: $t) { token } }',
          { d: dashboardId, t: shareToken },
          { token: issued.token },
        ),
        'mintDatasourceSessionToken',
      ).token;
      expect((await introspect({ sessionToken: saToken })).status).toBe(200);
      dataOf(
        await call(
          'mutation($id: ID!) { adminUpdateServiceAccount(_id: $id, input: { active: false }) { _id } }',
          {
            id: account._id,
          },
        ),
        'adminUpdateServiceAccount',
      );
      expect(await introspect({ sessionToken: saToken })).toEqual({
        status: 403,
        body: { error: 'Access revoked' },
      });
    });

    it('403 when the datasource changed, is disabled, its profile lost public use or was deleted; 404 once removed', async () => {
      const changed = await mint('plain');
      const header = await mint('header');
      const bearer = await mint('bearer');
      const removed = await mint('query');
      const update = async (datasources: unknown[]) => {
        const current = dataOf<{ documentRevision: number }>(
          await call(
            'query($id: ID!) { dashboard(_id: $id) { documentRevision } }',
            { id: dashboardId },
            'editor',
          ),
          'dashboard',
        );
        const response = await call(
          'mutation($id: ID!, $i: UpdateDashboardInput!) { updateDashboard(_id: $id, dashboard: $i) { _id } }',
          { id: dashboardId, i: { datasources, expectedDocumentRevision: current.documentRevision } },
          'editor',
        );
        dataOf(response, 'updateDashboard');
      };
      const list = DATASOURCES();
      await update(
        list
          .filter((d) => d.id !== 'query')
          .map((d) =>
            d.id === 'plain'
              ? { ...d, settings: { url: 'http://10.0.0.2/other' } }
              : d.id === 'header'
                ? { ...d, enabled: false }
                : d,
          ),
      );
      expect(await introspect({ sessionToken: changed })).toEqual({
        status: 403,
        body: { error: 'Datasource changed since the token was minted' },
      });
      expect(await introspect({ sessionToken: header })).toEqual({
        status: 403,
        body: { error: 'Datasource disabled' },
      });
      expect(await introspect({ sessionToken: removed })).toEqual({
        status: 404,
        body: { error: 'Datasource not found' },
      });
      await call(
        'mutation($id: ID!) { adminUpdateCredentialProfile(_id: $id, input: { allowPublicUse: false }) { _id } }',
        {
          id: bearerId,
        },
      );
      expect(await introspect({ sessionToken: bearer })).toEqual({
        status: 403,
        body: { error: 'Public use not allowed' },
      });
      const userFlow = await mint('bearer', 'editor');
      await call('mutation($id: ID!) { adminDeleteCredentialProfile(_id: $id) { _id } }', { id: bearerId });
      expect(await introspect({ sessionToken: userFlow })).toEqual({
        status: 403,
        body: { error: 'Credential profile unavailable' },
      });
    });

    it('403 "Share token is stale" after rotation while the user flow goes on; "Access revoked" once deactivated', async () => {
      const userToken = await mint('plain', 'editor');
      const publicToken = await mint('plain');
      expect((await introspect({ sessionToken: publicToken })).status).toBe(200);
      await call(
        'mutation($id: ID!) { rotateDashboardShareToken(_id: $id) { shareToken } }',
        { id: dashboardId },
        'editor',
      );
      expect(await introspect({ sessionToken: publicToken })).toEqual({
        status: 403,
        body: { error: 'Share token is stale' },
      });
      expect((await introspect({ sessionToken: userToken })).status).toBe(200);
      dataOf(
        await call('mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { _id } }', {
          id: f.ids.editor,
        }),
        'adminUpdateUser',
      );
      expect(await introspect({ sessionToken: userToken })).toEqual({
        status: 403,
        body: { error: 'Access revoked' },
      });
      expect(await introspect({ sessionToken: userToken, dashboardId: 'f'.repeat(24) })).toEqual({
        status: 403,
        body: { error: 'Token does not match the requested datasource' },
      });
      dataOf(
        await call('mutation($id: ID!) { deleteDashboard(_id: $id) { _id } }', { id: dashboardId }),
        'deleteDashboard',
      );
      expect(await introspect({ sessionToken: userToken })).toEqual({
        status: 404,
        body: { error: 'Dashboard not found' },
      });
    });
  });
});
