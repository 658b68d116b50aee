// The shop fleet at size: 20 fleet publishers (the real FleetPublisher, each fed a job that moves
// every second) on a real Mosquitto, and 50 gateway sockets of a `towpath serve` child subscribed to
// the shop-fleet datasource `towpath/v1/+/state`. What a supervisor's screen waits for: publish →
// socket. Figures and targets: scripts/bench/README.md.

import { eventually } from '../../../engine/testing/eventually.ts';
import { FleetPublisher } from '../../../server/fleet/publisher.ts';
import { Controller } from '../../../server/fleet/testing/controller.ts';
import { fleetSettings } from '../../../server/fleet/testing/settings.ts';
import { MachineFeed } from '../../../server/gateway/realtime/machine-feed.ts';
import { createLogger } from '../../../server/log.ts';
import { startCore } from '../../../server/testing/core.ts';
import { gql } from '../../../server/testing/graphql.ts';
import { startMosquitto } from '../../../server/testing/mosquitto.ts';
import {
  connectRealtime,
  GATEWAY_TEST_LIMITS,
  type RealtimeClient,
} from '../../../server/testing/realtime.ts';
import type { Bench } from '../support/report.ts';

const ADMIN = { email: 'bench@towpath.test', password: 'Str0ng-password!' };
const PUBLISHERS = 20;
const SOCKETS = 50;
const SECONDS = Number(process.env.BENCH_FLEET_SECONDS ?? 20);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

export const bench: Bench = async (report) => {
  const broker = await startMosquitto();
  const core = await startCore({
    ...GATEWAY_TEST_LIMITS,
    CREATE_ADMIN: 'true',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    GATEWAY_EGRESS_ALLOW: `loopback:${broker.port}`,
  });
  const sockets: RealtimeClient[] = [];
  const publishers: { publisher: FleetPublisher; controller: Controller; feed: MachineFeed }[] = [];
  const quiet = createLogger('silent');
  try {
    const signIn = await gql<{ authUser: { token: string } }>(
      core.lan,
      'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }',
      { variables: { e: ADMIN.email, p: ADMIN.password } },
    );
    const token = signIn.data?.authUser.token as string;
    const call = async <T>(query: string, variables: Record<string, unknown>, field: string): Promise<T> => {
      const response = await gql<Record<string, T>>(core.lan, query, { token, variables });
      const value = response.data?.[field];
      if (!value) throw new Error(response.raw);
      return value;
    };
    const profile = await call<{ _id: string }>(
      'mutation($i: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $i) { _id } }',
      {
        i: {
          name: 'Shop broker',
          brokerUrl: broker.url,
          allowPublicUse: true,
          topicAllowlist: ['towpath/v1/#'],
        },
      },
      'adminCreateBrokerProfile',
    );
    const board = await call<{ _id: string }>(
      'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id } }',
      {
        i: {
          title: 'Shop fleet',
          version: 'towpath 0.1.0',
          visibility: 'PUBLIC',
          datasources: [
            {
              id: 'fleet',
              title: 'Fleet',
              type: 'mqtt',
              settings: { brokerProfileId: profile._id, topic: 'towpath/v1/+/state', qos: 1 },
            },
          ],
        },
      },
      'createDashboard',
    );
    const minted = await gql<{ mintDatasourceSessionToken: { token: string } }>(
      core.lan,
      'mutation($d: ID!) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: "fleet") { token } }',
      { variables: { d: board._id } },
    );
    const sessionToken = minted.data?.mintDatasourceSessionToken.token;
    if (!sessionToken) throw new Error(minted.raw);

    // Every frame is parsed as a viewer would; latency from the state's own `at` (same clock).
    const latencies: number[] = [];
    let parseErrors = 0;
    let measuring = false;
    /** The latest `at` each socket has seen per workstation. */
    const latest = Array.from({ length: SOCKETS }, () => new Map<string, string>());
    for (let i = 0; i < SOCKETS; i++) {
      const client = await connectRealtime(core.lan);
      client.ws.removeAllListeners('message');
      client.ws.on('message', (data) => {
        const receivedAt = Date.now();
        let message: { type?: string; code?: string; value?: { workstationId?: string; at?: string } };
        try {
          message = JSON.parse(String(data));
        } catch {
          parseErrors += 1;
          return;
        }
        if (message.type === 'error' && message.code === 'PARSE_ERROR') parseErrors += 1;
        const state = message.type === 'data' ? message.value : undefined;
        if (!state?.workstationId || !state.at) return;
        (latest[i] as Map<string, string>).set(state.workstationId, state.at);
        if (measuring) latencies.push(receivedAt - Date.parse(state.at));
      });
      sockets.push(client);
      client.send({
        type: 'subscribe',
        id: 'fleet',
        dashboardId: board._id,
        datasourceId: 'fleet',
        sessionToken,
      });
    }

    for (let p = 0; p < PUBLISHERS; p++) {
      const controller = new Controller();
      const feed = new MachineFeed(controller);
      const id = `w${String(p + 1).padStart(2, '0')}`;
      const publisher = new FleetPublisher({
        config: fleetSettings(broker.url, id, { name: `Winder ${p + 1}` }),
        feed,
        logger: quiet,
      });
      publisher.start();
      publishers.push({ publisher, controller, feed });
    }
    // Every socket has every winder's birth before the clock starts.
    await eventually(() => latest.every((seen) => seen.size === PUBLISHERS), 60_000);
    for (const { controller } of publishers) controller.state('streaming');

    measuring = true;
    let acknowledged = 0;
    // Each winder moves once a second, the publishers staggered across the second as real ones are.
    const ticks = publishers.map(({ controller }, p) => {
      let timer: NodeJS.Timeout | undefined;
      const start = setTimeout(
        () => {
          timer = setInterval(() => controller.progress(++acknowledged % 1000, 1000), 1000);
        },
        (p * 1000) / PUBLISHERS,
      );
      return () => {
        clearTimeout(start);
        clearInterval(timer);
      };
    });
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    for (const stop of ticks) stop();
    measuring = false;
    // No backlog: within a second of the last publish every socket holds every winder's latest state.
    const lastPublished = () =>
      new Map(
        publishers.map(({ publisher }) => [
          publisher.identity.workstationId,
          publisher.runtime().lastPublishAt,
        ]),
      );
    const behind = () => {
      const want = lastPublished();
      return latest.reduce(
        (sum, seen) => sum + [...want].filter(([id, at]) => at !== null && seen.get(id) !== at).length,
        0,
      );
    };
    await eventually(() => behind() === 0, 1000).catch(() => {});
    latencies.sort((a, b) => a - b);
    report('fleet.publish_to_socket.p50', 'ms', quantile(latencies, 0.5), null);
    report('fleet.publish_to_socket.p99', 'ms', quantile(latencies, 0.99), 250);
    report(
      'fleet.publish_to_socket.delivered_per_s',
      'messages/s',
      latencies.length / SECONDS,
      PUBLISHERS * SOCKETS,
    );
    report('fleet.parse_errors', 'count', parseErrors, 0);
    report('fleet.backlog_after_1s', 'states', behind(), 0);
  } finally {
    await Promise.all(publishers.map(({ publisher }) => publisher.stop()));
    for (const { feed } of publishers) feed.close();
    for (const client of sockets) client.ws.terminate();
    await core.stop();
    await broker.stop();
  }
};
