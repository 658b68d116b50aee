// The two ways a subscription is granted (gateway spec §3.3, §8) and kept (§3.4): the token flow
// verifies, rate-limits public tokens, introspects and attaches to an upstream; the `machine` flow
// checks that the caller may read the dashboard and feeds it the machine status. Renewal repeats the
// check and re-arms the expiry.
import type { Logger } from '../../log.ts';
import { topicAllowed } from '../../profiles/topics.ts';
import { EgressError, portOf, type Resolver, resolveUpstream } from '../egress.ts';
import type { EgressRefusals } from '../egress-audit.ts';
import { consumeRealtime, type RealtimeLimiterDeps } from '../internal/rate-limit.ts';
import type { GatewaySettings } from '../settings.ts';
import { BrokerLimitError, type UpstreamPool } from '../upstreams/pool.ts';
import type { FailReason } from '../upstreams/shared.ts';
import {
  checkMachineRead,
  INVALID_SESSION_TOKEN,
  introspect,
  unverifiedClaims,
  verifySessionToken,
} from './authorise.ts';
import type { ClientSocket } from './client-socket.ts';
import { MachineDelivery, type MachineFeed } from './machine-feed.ts';
import { causeOf, ID_PATTERN, type Kind, Refusal, STREAMED_WITH_TOKEN } from './protocol.ts';
import type { SubscriptionRegistry } from './registry.ts';
import { type CheckDeps, introspectLive, machineCause, revoke } from './revocation.ts';
import { type MachineAuth, Subscription } from './subscription.ts';

export type Message = Record<string, unknown>;

export interface FlowDeps extends CheckDeps, RealtimeLimiterDeps {
  settings: GatewaySettings;
  logger: Logger;
  pool: UpstreamPool;
  egressRefusals: EgressRefusals;
  machine: MachineFeed | null;
  resolver?: Resolver;
}

/** An `INVALID_MESSAGE` error, counted towards the socket's limit of invalid messages. */
export function invalid(client: ClientSocket, message: string, id: string | null = null): void {
  client.send({ type: 'error', id, code: 'INVALID_MESSAGE', message });
  client.countInvalid();
}

/** The live subscription an `unsubscribe` or `renew` names, or undefined after answering why not. */
export function liveSubscription(client: ClientSocket, m: Message): Subscription | undefined {
  if (typeof m.id !== 'string' || m.id === '') {
    invalid(client, 'id is required');
    return undefined;
  }
  const subscription = client.subscriptions.get(m.id);
  if (!subscription)
    client.send({
      type: 'error',
      id: m.id,
      code: 'UNKNOWN_SUBSCRIPTION',
      message: `No subscription with id ${m.id}`,
    });
  return subscription;
}

function machineAuth(raw: unknown): MachineAuth {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const { bearer, shareToken } = raw as Record<string, unknown>;
  return {
    ...(typeof bearer === 'string' && bearer !== '' ? { bearer } : {}),
    ...(typeof shareToken === 'string' && shareToken !== '' ? { shareToken } : {}),
  };
}

export class SubscribeFlows {
  readonly #deps: FlowDeps;
  readonly #registry: SubscriptionRegistry;
  readonly #secret: Uint8Array;
  readonly #stopping: () => boolean;

  constructor(
    deps: FlowDeps,
    registry: SubscriptionRegistry,
    gatewaySecret: string,
    stopping: () => boolean,
  ) {
    this.#deps = deps;
    this.#registry = registry;
    this.#secret = new TextEncoder().encode(gatewaySecret);
    this.#stopping = stopping;
  }

  // ---- subscribe (§3.3, §8) ----

  async subscribe(client: ClientSocket, m: Message): Promise<void> {
    const registry = this.#registry;
    if (m.id === undefined || m.id === null) {
      registry.sendClosed(client, null, 'invalid_request', 'id is required');
      return;
    }
    if (typeof m.id !== 'string' || !ID_PATTERN.test(m.id)) {
      registry.sendClosed(client, null, 'invalid_request', 'id must match [A-Za-z0-9_-]{1,64}');
      return;
    }
    const id = m.id;
    if (client.subscriptions.has(id) || client.pending.has(id)) {
      client.send({
        type: 'error',
        id,
        code: 'DUPLICATE_ID',
        message: `Subscription id ${id} is already in use`,
      });
      return;
    }
    for (const field of ['dashboardId', 'datasourceId'] as const) {
      const value = m[field];
      if (value === undefined || value === null) {
        registry.sendClosed(client, id, 'invalid_request', `${field} is required`);
        return;
      }
      if (typeof value !== 'string' || value.length < 1 || value.length > 64) {
        registry.sendClosed(client, id, 'invalid_request', `${field} must be 1–64 characters`);
        return;
      }
    }
    const max = this.#deps.settings.maxSubscriptionsPerSocket;
    if (client.subscriptions.size + client.pending.size >= max) {
      registry.sendClosed(client, id, 'limit_reached', `Subscription limit of ${max} per connection reached`);
      return;
    }
    client.pending.add(id);
    client.subscriptionsChanged();
    try {
      const subscription =
        'sessionToken' in m ? await this.#tokenFlow(client, id, m) : await this.#machineFlow(client, id, m);
      client.pending.delete(id);
      if (client.closed || this.#stopping()) {
        registry.end(subscription);
        return;
      }
      this.#deps.logger.info(
        {
          event: 'gateway.subscription.opened',
          socket: client.id,
          id,
          dashboard: subscription.dashboardId,
          datasource: subscription.datasourceId,
          kind: subscription.kind,
          flow: subscription.flow,
        },
        'gateway.subscription.opened',
      );
    } catch (error) {
      client.pending.delete(id);
      client.subscriptionsChanged();
      if (!(error instanceof Refusal)) throw error;
      if (!client.closed) registry.sendClosed(client, id, error.reason, error.message, error.extra);
    }
  }

  #publicLimits(ip: string, dashboardId: string, shareTokenVersion: number): void {
    const { settings } = this.#deps;
    const scopes = [
      ['realtime-public-subscribe-ip', ip, settings.publicSubscribeIpPerMinute],
      [
        'realtime-public-subscribe-share',
        `${dashboardId}:${shareTokenVersion}`,
        settings.publicSubscribeSharePerMinute,
      ],
    ] as const;
    for (const [scope, key, limit] of scopes) {
      const verdict = consumeRealtime(this.#deps, scope, key, limit);
      if ('unavailable' in verdict)
        throw new Refusal('unavailable', 'Security limiter unavailable', { retryAfterMs: 30_000 });
      if (!verdict.allowed)
        throw new Refusal('rate_limited', 'Too many public realtime subscriptions', {
          retryAfterMs: verdict.retryAfterMs,
        });
    }
  }

  async #tokenFlow(client: ClientSocket, id: string, m: Message): Promise<Subscription> {
    const dashboardId = m.dashboardId as string;
    const datasourceId = m.datasourceId as string;
    if (typeof m.sessionToken !== 'string' || m.sessionToken === '')
      throw new Refusal('invalid_request', 'sessionToken is required');
    const token = m.sessionToken;
    const claims = await verifySessionToken(this.#secret, this.#deps.clock, token);
    if (!claims) throw new Refusal('denied', INVALID_SESSION_TOKEN, { status: 401 });
    if (claims.shareTokenVersion !== undefined)
      this.#publicLimits(client.ip, dashboardId, claims.shareTokenVersion);
    const answer = await introspect(this.#deps.introspection, token, dashboardId, datasourceId);
    if ('error' in answer) throw new Refusal('denied', answer.error, { status: answer.status });
    if (answer.scope !== 'datasource:stream')
      throw new Refusal('denied', 'Token scope does not allow streaming', { status: 403 });
    const kind = String(answer.intent.protocol);
    if (!STREAMED_WITH_TOKEN.has(kind))
      throw new Refusal('invalid_request', `Datasource type ${kind} cannot be streamed`);
    if (this.#registry.otherSocketsOn(dashboardId, client) >= this.#deps.settings.maxSocketsPerDashboard)
      throw new Refusal('limit_reached', 'Realtime connection limit for this dashboard reached');
    await this.#checkAttach(answer.intent, dashboardId, datasourceId);
    const flow = claims.sub === 'public' ? 'public' : claims.sub.startsWith('sa:') ? 'service' : 'user';
    const subscription = new Subscription({
      id,
      client,
      dashboardId,
      datasourceId,
      kind: kind as Kind,
      flow,
      onFail: (s, reason, message) => this.#upstreamFailed(s, reason, message),
    });
    subscription.token = token;
    subscription.claims = claims;
    subscription.intent = answer.intent;
    if (client.closed) return subscription;
    this.#registry.register(subscription, claims.exp * 1000);
    subscription.attachment = this.#deps.pool.attach(answer.intent, subscription);
    return subscription;
  }

  /** §3.3 step 7, before `subscribed`: egress, the broker's topic allowlist, the broker cap. */
  async #checkAttach(
    intent: Record<string, unknown>,
    dashboardId: string,
    datasourceId: string,
  ): Promise<void> {
    if (
      intent.protocol === 'mqtt' &&
      !topicAllowed((intent.topicAllowlist as string[]) ?? [], String(intent.topic))
    )
      throw new Refusal('denied', 'Topic not allowed by the broker profile', { status: 403 });
    const url = new URL(String(intent.protocol === 'mqtt' ? intent.brokerUrl : intent.url));
    try {
      await resolveUpstream(this.#deps.settings.egress, url.hostname, portOf(url), this.#deps.resolver);
    } catch (error) {
      if (!(error instanceof EgressError)) throw error;
      // A name that does not resolve now is retried by the upstream (§7.4).
      if (error.failure !== 'unresolved') {
        this.#deps.egressRefusals.record(error, dashboardId, datasourceId);
        throw new Refusal('egress_refused', error.message);
      }
    }
    if (intent.protocol === 'mqtt' && !this.#deps.pool.canAttach(intent))
      throw new Refusal('limit_reached', new BrokerLimitError().message);
  }

  async #machineFlow(client: ClientSocket, id: string, m: Message): Promise<Subscription> {
    const dashboardId = m.dashboardId as string;
    const datasourceId = m.datasourceId as string;
    const auth = machineAuth(m.auth);
    const grant = await checkMachineRead(this.#deps, auth, dashboardId, datasourceId);
    if (grant.publicOnly) this.#publicLimits(client.ip, dashboardId, grant.shareTokenVersion);
    const feed = this.#deps.machine;
    if (!feed) throw new Refusal('unavailable', 'Internal error', { retryAfterMs: 30_000 });
    const subscription = new Subscription({
      id,
      client,
      dashboardId,
      datasourceId,
      kind: 'machine',
      flow: 'machine',
      onFail: (s, reason, message) => this.#upstreamFailed(s, reason, message),
    });
    subscription.auth = auth;
    subscription.userId = grant.userId;
    if (client.closed) return subscription;
    this.#registry.register(subscription, grant.expiresAt);
    this.#registry.deliver(subscription, new MachineDelivery(subscription, feed));
    return subscription;
  }

  #upstreamFailed(subscription: Subscription, reason: FailReason, message: string): void {
    // The upstream has already let go of it.
    subscription.attachment = undefined;
    this.#registry.close(subscription, reason, message);
  }

  // ---- renew (§3.4, §8) ----

  async renew(client: ClientSocket, m: Message): Promise<void> {
    const registry = this.#registry;
    const subscription = liveSubscription(client, m);
    if (!subscription) return;
    const renewFailed = (message: string) =>
      client.send({ type: 'error', id: subscription.id, code: 'RENEW_FAILED', message });
    if (subscription.flow === 'machine') {
      const auth = machineAuth(m.auth);
      try {
        const grant = await checkMachineRead(
          this.#deps,
          auth,
          subscription.dashboardId,
          subscription.datasourceId,
        );
        if (subscription.closed) return;
        subscription.auth = auth;
        subscription.userId = grant.userId;
        client.send({
          type: 'renewed',
          id: subscription.id,
          expiresInMs: registry.arm(subscription, grant.expiresAt),
        });
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        revoke(registry, subscription, error.message, machineCause(error.message));
      }
      return;
    }
    if (typeof m.sessionToken !== 'string' || m.sessionToken === '') {
      invalid(client, 'sessionToken is required', subscription.id);
      return;
    }
    const token = m.sessionToken;
    const current = subscription.claims;
    const offered = unverifiedClaims(token);
    if (!offered) {
      renewFailed(INVALID_SESSION_TOKEN);
      return;
    }
    if (
      !current ||
      offered.dashboardId !== current.dashboardId ||
      offered.datasourceId !== current.datasourceId ||
      offered.intentHash !== current.intentHash
    ) {
      renewFailed('Renewal token does not match the subscription');
      return;
    }
    const answer = await introspectLive(this.#deps, subscription, token);
    if (subscription.closed) return;
    if ('error' in answer) {
      if (answer.status === 401 || answer.status >= 500)
        renewFailed(answer.status === 401 ? INVALID_SESSION_TOKEN : 'Internal error');
      else revoke(registry, subscription, answer.error, causeOf(answer.error));
      return;
    }
    const verified = await verifySessionToken(this.#secret, this.#deps.clock, token);
    if (!verified || subscription.closed) {
      if (!verified) renewFailed(INVALID_SESSION_TOKEN);
      return;
    }
    subscription.token = token;
    subscription.claims = verified;
    client.send({
      type: 'renewed',
      id: subscription.id,
      expiresInMs: registry.arm(subscription, verified.exp * 1000),
    });
  }
}
