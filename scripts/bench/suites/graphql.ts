// The dashboard API's own speed: `me` on a real workstation beside a bare graphql-yoga "hello"
// server in the same run, and sign-in at the spec's Argon2id cost. Figures and targets:
// scripts/bench/README.md.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { withWorkstation } from '../../../server/testing/workstation.ts';
import { postLoad } from '../support/load.ts';
import { type Bench, median } from '../support/report.ts';

const CONNECTIONS = 32;
const LOAD_SECONDS = 5;
const WARMUP_SECONDS = 1;
const AUTH_SAMPLES = 15;
const ADMIN_EMAIL = 'bench@towpath.test';
const ADMIN_PASSWORD = 'Bench-passw0rd!x';
const ME_QUERY = '{ me { _id email role active } }';

async function post(url: string, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: await response.text() };
}

/** 32 connections for a few seconds after a short warm-up; every answer must equal `expected`. */
function load(url: string, query: string, headers: Record<string, string>, expected: string) {
  return postLoad({
    url,
    headers,
    body: JSON.stringify({ query }),
    expected,
    connections: CONNECTIONS,
    seconds: LOAD_SECONDS,
    warmupSeconds: WARMUP_SECONDS,
  });
}

async function startHelloServer(): Promise<{ url: string; server: Server }> {
  const yoga = createYoga({
    schema: createSchema({
      typeDefs: 'type Query { hello: String! }',
      resolvers: { Query: { hello: () => 'world' } },
    }),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: false,
    logging: false,
  });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/graphql`, server };
}

export const bench: Bench = async (report) => {
  const hello = await startHelloServer();
  try {
    // No argon2Cost override: the spec's m = 19456 KiB, t = 2, p = 1.
    await withWorkstation({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, {}, async (ws) => {
      const graphqlUrl = `${ws.urls.lan}/graphql`;

      // authUser, one at a time (each sign-in succeeds, so the login throttle never engages).
      const signIn = `mutation { authUser(email: "${ADMIN_EMAIL}", password: "${ADMIN_PASSWORD}") { token } }`;
      const durations: number[] = [];
      let token = '';
      for (let i = 0; i < AUTH_SAMPLES + 1; i++) {
        const t0 = performance.now();
        const answer = await post(graphqlUrl, signIn);
        const elapsed = performance.now() - t0;
        token =
          (JSON.parse(answer.body) as { data?: { authUser?: { token?: string } } }).data?.authUser?.token ??
          '';
        if (!token) throw new Error(`authUser failed: ${answer.status} ${answer.body}`);
        // The first sign-in also pays for warming the route; it is left out.
        if (i > 0) durations.push(elapsed);
      }
      report('graphql.authUser.median', 'ms', median(durations), null);

      const session = { authorization: `Bearer ${token}` };
      const meAnswer = await post(graphqlUrl, ME_QUERY, session);
      if (meAnswer.status !== 200 || !meAnswer.body.includes(ADMIN_EMAIL))
        throw new Error(`me failed: ${meAnswer.status} ${meAnswer.body}`);
      const helloAnswer = await post(hello.url, '{ hello }');
      if (helloAnswer.status !== 200 || !helloAnswer.body.includes('world'))
        throw new Error(`hello failed: ${helloAnswer.status} ${helloAnswer.body}`);

      const helloLoad = await load(hello.url, '{ hello }', {}, helloAnswer.body);
      const meLoad = await load(graphqlUrl, ME_QUERY, session, meAnswer.body);

      report('graphql.me.rate', 'requests/s', meLoad.requests.average, 3000);
      report('graphql.me.p99', 'ms', meLoad.latency.p99, null);
      report('graphql.yoga_hello.rate', 'requests/s', helloLoad.requests.average, null);
      report('graphql.yoga_hello.p99', 'ms', helloLoad.latency.p99, null);
      report(
        'graphql.me.rate_vs_yoga_hello',
        'ratio',
        meLoad.requests.average / helloLoad.requests.average,
        null,
      );
    });
  } finally {
    hello.server.closeAllConnections();
    await new Promise<void>((resolve) => hello.server.close(() => resolve()));
  }
};
