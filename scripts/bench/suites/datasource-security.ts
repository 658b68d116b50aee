// The datasource-security doors: minting session tokens in the user flow, introspection through
// /internal/gateway/datasource-introspect, and a page of the revocation feed. The limits are the
// real ones raised to their maxima, with four callers a connection, so no per-caller window refuses
// a request during the run. Figures and targets: scripts/bench/README.md.
import { gql, signIn } from '../../../server/testing/graphql.ts';
import { withWorkstation } from '../../../server/testing/workstation.ts';
import { postLoad } from '../support/load.ts';
import { type Bench, reportTimes } from '../support/report.ts';

const PASSWORD = 'Bench-passw0rd!x';
const ADMIN_EMAIL = 'bench@towpath.test';
const CALLERS = 4;
const CONNECTIONS = 16;
const FEED_EVENTS = 500;

/** One setup operation's data; the bench stops at the first refusal. */
async function call(lan: string, query: string, variables: Record<string, unknown> = {}, token?: string) {
  const answer = await gql(lan, query, { variables, ...(token ? { token } : {}) });
  if (answer.errors) throw new Error(`bench setup failed: ${answer.raw}`);
  return answer.data ?? {};
}

export const bench: Bench = async (report) => {
  const limits = {
    API_TRUST_PROXY_HOPS: '1',
    DATASOURCE_TOKEN_MINT_RATE_LIMIT_USER_PER_MIN: '10000',
    GATEWAY_INTROSPECTION_RATE_LIMIT_PER_MIN: '100000',
    GATEWAY_REVOKED_TOKENS_MAX_BATCH: String(FEED_EVENTS),
  };
  await withWorkstation({ email: ADMIN_EMAIL, password: PASSWORD }, limits, async (ws) => {
    const lan = ws.urls.lan;
    const url = `${lan}/graphql`;
    const tokens = [await signIn(lan, ADMIN_EMAIL, PASSWORD)];
    for (let i = 1; i < CALLERS; i++) {
      const email = `bench-${i}@towpath.test`;
      await call(
        lan,
        'mutation($e: String!, $p: String!) { adminCreateUser(email: $e, password: $p, role: ADMIN) { _id } }',
        { e: email, p: PASSWORD },
        tokens[0],
      );
      tokens.push(await signIn(lan, email, PASSWORD));
    }
    const credential = await call(
      lan,
      'mutation { adminCreateCredentialProfile(input: { name: "PLC", type: BEARER, secret: { token: "bench-token" } }) { _id } }',
      {},
      tokens[0],
    );
    const credentialId = (credential.adminCreateCredentialProfile as { _id: string })._id;
    const made = await call(
      lan,
      'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id } }',
      {
        i: {
          title: 'Bench line',
          version: 'bench',
          datasources: [
            {
              id: 'temp',
              title: 'Temperature',
              type: 'http',
              settings: { url: 'http://10.0.0.9/t', credentialProfileId: credentialId },
            },
          ],
        },
      },
      tokens[0],
    );
    const dashboardId = (made.createDashboard as { _id: string })._id;

    // 1. Minting, user flow. `__typename` keeps every answer byte-identical (each token differs)
    // while the resolver still checks, counts and signs in full.
    const mintQuery = `mutation { mintDatasourceSessionToken(dashboardId: "${dashboardId}", datasourceId: "temp") { __typename } }`;
    const mint = await postLoad({
      url,
      body: JSON.stringify({ query: mintQuery }),
      expected: JSON.stringify({
        data: { mintDatasourceSessionToken: { __typename: 'DatasourceSessionToken' } },
      }),
      connections: CONNECTIONS,
      rotatingHeaders: tokens.map((token) => ({ authorization: `Bearer ${token}` })),
    });
    report('datasource.mint_user_flow.rate', 'requests/s', mint.requests.average, 1500);
    report('datasource.mint_user_flow.p99', 'ms', mint.latency.p99, null);

    // 2. Introspection of one session token with the gateway service token.
    const minted = await call(
      lan,
      `mutation { mintDatasourceSessionToken(dashboardId: "${dashboardId}", datasourceId: "temp") { token } }`,
      {},
      tokens[0],
    );
    const sessionToken = (minted.mintDatasourceSessionToken as { token: string }).token;
    const introspectUrl = `${ws.urls.lan}/internal/gateway/datasource-introspect`;
    const serviceToken = ws.dashboardApi.secrets.GATEWAY_SERVICE_TOKEN;
    const body = JSON.stringify({ sessionToken });
    const probe = await fetch(introspectUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${serviceToken}` },
      body,
    });
    const expected = await probe.text();
    if (probe.status !== 200 || !expected.includes('Bearer bench-token'))
      throw new Error(`introspection answered ${probe.status}: ${expected}`);
    const introspection = await postLoad({
      url: introspectUrl,
      headers: { authorization: `Bearer ${serviceToken}` },
      body,
      expected,
      connections: CONNECTIONS,
      rotatingHeaders: Array.from({ length: CALLERS }, (_, i) => ({
        'x-forwarded-for': `198.51.100.${i + 1}`,
      })),
    });
    report('datasource.introspect.rate', 'requests/s', introspection.requests.average, 3000);
    report('datasource.introspect.p99', 'ms', introspection.latency.p99, null);

    // 3. A 500-event page of the revocation feed.
    const { store } = ws.dashboardApi.services;
    const at = new Date().toISOString();
    store.transaction(() => {
      for (let i = 0; i < FEED_EVENTS; i++)
        store.dashboards.addRevocationEvent(dashboardId, i + 2, 'share_token_rotated', at);
    });
    const inProcess: number[] = [];
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      const page = ws.dashboardApi.gatewayChecks.revokedTokens({ sinceCursor: null });
      inProcess.push(performance.now() - started);
      if (page.status !== 200 || page.body.events.length !== FEED_EVENTS)
        throw new Error(
          `feed page had ${page.status === 200 ? page.body.events.length : page.status} events`,
        );
    }
    reportTimes(report, 'datasource.revocation_feed_page_500.in_process', inProcess, 10);
    const overHttp: number[] = [];
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      const response = await fetch(`${ws.urls.lan}/internal/gateway/revoked-tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${serviceToken}` },
        body: '{}',
      });
      const page = (await response.json()) as { events: unknown[] };
      overHttp.push(performance.now() - started);
      if (page.events.length !== FEED_EVENTS) throw new Error(`feed page had ${page.events.length} events`);
    }
    reportTimes(report, 'datasource.revocation_feed_page_500.http', overHttp, 10);
  });
};
