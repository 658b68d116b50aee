// The realtime socket of gateway spec §3: the upgrade checks, the message loop, the token and
// `machine` subscribe flows, renewal and expiry, and revocation from the in-process change bus (§6).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { AuditLog } from '../../auth/audit-log.ts';
import type { ServiceAccountAuthenticator } from '../../auth/principal.ts';
import type { SessionTokens } from '../../auth/sessions.ts';
import type { Clock, TokenHasher } from '../../auth/tokens.ts';
import type { Change, ChangeBus } from '../../dashboards/bus.ts';
import type { DashboardService } from '../../dashboards/service.ts';
import type { Store } from '../../db/store.ts';
import type { ClientAddresses } from '../../http/client-address.ts';
import { refuseUpgrade } from '../../http/upgrade-refusal.ts';
import type { Logger } from '../../log.ts';
import { topicAllowed } from '../../profiles/topics.ts';
import type { Resolver } from '../egress.ts';
import { EgressError, portOf, resolveUpstream } from '../egress.ts';
import type { EgressRefusals } from '../egress-audit.ts';
import type { IntrospectionDeps } from '../internal/introspect.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { GatewaySettings } from '../settings.ts';
import { BrokerLimitError, UpstreamPool } from '../upstreams/pool.ts';
import type { FailReason } from '../upstreams/shared.ts';
import {
  checkMachineRead,
  INVALID_SESSION_TOKEN,
  introspect,
  type MachineGrant,
  unverifiedClaims,
  verifySessionToken,
} from './authorise.ts';
import { ClientSocket } from './client-socket.ts';
import { consumeRealtime } from './limiter.ts';
import { MachineDelivery, type MachineFeed } from './machine-feed.ts';
import {
  CLOSE,
  type ClosedExtra,
  type ClosedReason,
  causeOf,
  ERROR_REASONS,
  ID_PATTERN,
  type Kind,
  Refusal,
  SHUTDOWN_GRACE_MS,
  STREAMED_WITH_TOKEN,
  SUBPROTOCOL,
} from './protocol.ts';
import { type MachineAuth, Subscription } from './subscription.ts';

export const REALTIME_PATH = '/gateway/realtime';
const MAX_SERVER_FRAME = 1024 * 1024;
const REVOKE_TRIGGERS = new Set([
  'visibility_changed',
  'share_token_rotated',
  'owner_offboarded',
  'dashboard_deleted',
]);

export interface RealtimeDeps {
  settings: GatewaySettings;
  store: Store;
  clock: Clock;
  tokens: TokenHasher;
  audit: AuditLog;
  logger: Logger;
  sessions: SessionTokens;
  serviceAccounts: ServiceAccountAuthenticator;
  dashboards: DashboardService;
  clientAddresses: ClientAddresses;
  bus: ChangeBus;
  corsOrigins: readonly string[];
  introspection: IntrospectionDeps;
  gatewaySecret: string;
  metrics: GatewayMetrics;
  pool: UpstreamPool;
  egressRefusals: EgressRefusals;
  machine: MachineFeed | null;
  resolver?: Resolver;
}

type Message = Record<string, unknown>;

export class RealtimeGateway {
  readonly #deps: RealtimeDeps;
  readonly #wss: WebSocketServer;
  readonly #clients = new Set<ClientSocket>();
  readonly #perIp = new Map<string, number>();
  readonly #subscriptions = new Set<Subscription>();
  readonly #byDashboard = new Map<string, Set<Subscription>>();
  readonly #machine = new Map<Subscription, MachineDelivery>();
  readonly #secret: Uint8Array;
  readonly #unsubscribeBus: () => void;
  readonly #sweep: NodeJS.Timeout;
  #stopping = false;

  constructor(deps: RealtimeDeps) {
    this.#deps = deps;
    this.#secret = new TextEncoder().encode(deps.gatewaySecret);
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_SERVER_FRAME,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
    this.#unsubscribeBus = deps.bus.subscribe((change) => this.#onChange(change));
    this.#sweep = setInterval(() => this.revalidateAll(), deps.settings.revalidateIntervalSeconds * 1000);
    this.#sweep.unref();
  }

  /** Whether a socket of this client is still open here (tests watch slow clients being dropped). */
  hasSocketOf(remote: object): boolean {
    const port = (remote as { _socket?: { localPort?: number } })._socket?.localPort;
    return [...this.#clients].some((client) => client.remotePort === port);
  }

  get subscriptionCount(): number {
    return this.#subscriptions.size;
  }

  // ---- upgrade (§3.1) ----

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { metrics, settings } = this.#deps;
    const path = (request.url ?? '').split('?')[0];
    const isWebSocket = (request.headers.upgrade ?? '').toLowerCase() === 'websocket';
    if (path === REALTIME_PATH && isWebSocket) metrics.realtimeConnectionAttempts += 1;
    const ip = this.#deps.clientAddresses.resolve(
      request.socket.remoteAddress,
      request.headers['x-forwarded-for'],
    ).ip;
    const reject = (
      status: number,
      error: string,
      extra: Record<string, unknown> = {},
      headers: string[] = [],
    ) => {
      if (path === REALTIME_PATH && isWebSocket) metrics.realtimeConnectionsRejected += 1;
      this.#deps.logger.warn(
        { event: 'gateway.upgrade.rejected', ip, status, error },
        'gateway.upgrade.rejected',
      );
      refuseUpgrade(socket, status, { error, ...extra }, headers);
    };
    if (path !== REALTIME_PATH || !settings.enabled || this.#stopping) {
      reject(404, 'Not found');
      return;
    }
    const key = request.headers['sec-websocket-key'];
    if (
      request.method !== 'GET' ||
      !isWebSocket ||
      typeof key !== 'string' ||
      !/^[A-Za-z0-9+/]{22}==$/.test(key) ||
      request.headers['sec-websocket-version'] !== '13'
    ) {
      reject(426, 'WebSocket upgrade required', {}, ['upgrade: websocket']);
      return;
    }
    if (!this.#originAllowed(request.headers.origin, request.headers.host)) {
      reject(403, 'Origin not allowed');
      return;
    }
    const verdict = consumeRealtime(this.#deps, 'realtime-connect-ip', ip, settings.connectIpPerMinute);
    if ('unavailable' in verdict) {
      reject(503, 'Security limiter unavailable');
      return;
    }
    if (!verdict.allowed) {
      const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
      reject(429, 'Too many realtime connections', { retryAfterMs: verdict.retryAfterMs }, [
        `retry-after: ${seconds}`,
      ]);
      return;
    }
    if ((this.#perIp.get(ip) ?? 0) >= settings.maxSocketsPerIp) {
      reject(429, 'Too many open realtime connections from this address');
      return;
    }
    if (this.#clients.size >= settings.maxSockets) {
      reject(503, 'Realtime gateway is at capacity');
      return;
    }
    // Counted before the handshake finishes so a burst cannot overshoot the caps.
    this.#perIp.set(ip, (this.#perIp.get(ip) ?? 0) + 1);
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      metrics.realtimeConnectionsAccepted += 1;
      metrics.realtimeActiveConnections += 1;
      const client = new ClientSocket(ws, ip, request.socket.remotePort, metrics, {
        message: (c, text) => this.#onMessage(c, text),
        closed: (c, code) => this.#onClosed(c, code),
      });
      this.#clients.add(client);
      this.#deps.logger.info(
        { event: 'gateway.socket.opened', socket: client.id, ip },
        'gateway.socket.opened',
      );
    });
  }

  #originAllowed(origin: string | undefined, host: string | undefined): boolean {
    if (origin === undefined) return true;
    const lower = origin.toLowerCase();
    if (host && (lower === `http://${host.toLowerCase()}` || lower === `https://${host.toLowerCase()}`))
      return true;
    return this.#deps.corsOrigins.some((allowed) => allowed.toLowerCase() === lower);
  }

  #onClosed(client: ClientSocket, code: number): void {
    this.#clients.delete(client);
    this.#deps.metrics.realtimeActiveConnections -= 1;
    const left = (this.#perIp.get(client.ip) ?? 1) - 1;
    if (left <= 0) this.#perIp.delete(client.ip);
    else this.#perIp.set(client.ip, left);
    // A closed socket ends its subscriptions silently.
    for (const subscription of [...client.subscriptions.values()]) this.#end(subscription);
    this.#deps.logger.info(
      {
        event: 'gateway.socket.closed',
        socket: client.id,
        ip: client.ip,
        code,
        durationMs: Date.now() - client.openedAt,
      },
      'gateway.socket.closed',
    );
  }

  // ---- messages (§3.2) ----

  #invalid(client: ClientSocket, message: string, id: string | null = null): void {
    client.send({ type: 'error', id, code: 'INVALID_MESSAGE', message });
    client.countInvalid();
  }

  #onMessage(client: ClientSocket, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.#invalid(client, 'Message is not valid JSON');
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.#invalid(client, 'type is required');
      return;
    }
    const m = message as Message;
    if (typeof m.type !== 'string' || m.type === '') {
      this.#invalid(client, 'type is required');
      return;
    }
    switch (m.type) {
      case 'ping': {
        const nonce = typeof m.nonce === 'string' && m.nonce.length <= 64 ? m.nonce : undefined;
        client.send({ type: 'pong', ...(nonce === undefined ? {} : { nonce }) });
        return;
      }
      case 'unsubscribe':
        this.#unsubscribe(client, m);
        return;
      case 'subscribe':
        this.#subscribe(client, m).catch((error: unknown) => this.#internal(client, m, error));
        return;
      case 'renew':
        this.#renew(client, m).catch((error: unknown) => this.#internal(client, m, error));
        return;
      default:
        this.#invalid(client, `Unknown message type ${m.type.slice(0, 64)}`);
    }
  }

  #internal(client: ClientSocket, m: Message, error: unknown): void {
    this.#deps.logger.error({ err: error, socket: client.id }, 'realtime gateway message failed');
    const id = typeof m.id === 'string' ? m.id : null;
    client.pending.delete(id ?? '');
    const live = id === null ? undefined : client.subscriptions.get(id);
    if (live) this.#close(live, 'unavailable', 'Internal error', { retryAfterMs: 30_000 });
    else if (m.type === 'subscribe')
      this.#sendClosed(client, id, 'unavailable', 'Internal error', { retryAfterMs: 30_000 });
    client.subscriptionsChanged();
  }

  /** The live subscription an `unsubscribe` or `renew` names, or undefined after answering why not. */
  #live(client: ClientSocket, m: Message): Subscription | undefined {
    if (typeof m.id !== 'string' || m.id === '') {
      this.#invalid(client, 'id is required');
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

  #unsubscribe(client: ClientSocket, m: Message): void {
    const subscription = this.#live(client, m);
    if (!subscription) return;
    this.#close(subscription, 'unsubscribed', 'Unsubscribed');
  }

  #sendClosed(
    client: ClientSocket,
    id: string | null,
    reason: ClosedReason,
    message: string,
    extra: ClosedExtra = {},
  ) {
    if (ERROR_REASONS.has(reason)) this.#deps.metrics.realtimeErrorCount += 1;
    client.send({ type: 'closed', id, reason, message, ...extra });
  }

  // ---- subscribe (§3.3, §8) ----

  async #subscribe(client: ClientSocket, m: Message): Promise<void> {
    if (m.id === undefined || m.id === null) {
      this.#sendClosed(client, null, 'invalid_request', 'id is required');
      return;
    }
    if (typeof m.id !== 'string' || !ID_PATTERN.test(m.id)) {
      this.#sendClosed(client, null, 'invalid_request', 'id must match [A-Za-z0-9_-]{1,64}');
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
        this.#sendClosed(client, id, 'invalid_request', `${field} is required`);
        return;
      }
      if (typeof value !== 'string' || value.length < 1 || value.length > 64) {
        this.#sendClosed(client, id, 'invalid_request', `${field} must be 1–64 characters`);
        return;
      }
    }
    const max = this.#deps.settings.maxSubscriptionsPerSocket;
    if (client.subscriptions.size + client.pending.size >= max) {
      this.#sendClosed(client, id, 'limit_reached', `Subscription limit of ${max} per connection reached`);
      return;
    }
    client.pending.add(id);
    client.subscriptionsChanged();
    try {
      const subscription =
        'sessionToken' in m ? await this.#tokenFlow(client, id, m) : await this.#machineFlow(client, id, m);
      client.pending.delete(id);
      if (client.closed || this.#stopping) {
        this.#end(subscription);
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
      if (!client.closed) this.#sendClosed(client, id, error.reason, error.message, error.extra);
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

  #dashboardFull(client: ClientSocket, dashboardId: string): boolean {
    const others = new Set<ClientSocket>();
    for (const subscription of this.#byDashboard.get(dashboardId) ?? [])
      if (subscription.client !== client) others.add(subscription.client);
    return others.size >= this.#deps.settings.maxSocketsPerDashboard;
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
    if (this.#dashboardFull(client, dashboardId))
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
    this.#register(subscription, claims.exp * 1000);
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
    const auth = this.#auth(m.auth);
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
    this.#register(subscription, grant.expiresAt);
    this.#machine.set(subscription, new MachineDelivery(subscription, feed));
    return subscription;
  }

  #auth(raw: unknown): MachineAuth {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return {};
    const { bearer, shareToken } = raw as Record<string, unknown>;
    return {
      ...(typeof bearer === 'string' && bearer !== '' ? { bearer } : {}),
      ...(typeof shareToken === 'string' && shareToken !== '' ? { shareToken } : {}),
    };
  }

  /** Makes a checked subscription live: indexed, `subscribed` sent, its expiry armed. */
  #register(subscription: Subscription, expiresAt: number | null): void {
    const { client } = subscription;
    client.subscriptions.set(subscription.id, subscription);
    client.subscriptionsChanged();
    this.#subscriptions.add(subscription);
    let set = this.#byDashboard.get(subscription.dashboardId);
    if (!set) {
      set = new Set();
      this.#byDashboard.set(subscription.dashboardId, set);
    }
    set.add(subscription);
    client.send({
      type: 'subscribed',
      id: subscription.id,
      kind: subscription.kind,
      expiresInMs: this.#arm(subscription, expiresAt),
    });
  }

  /** Sets the credential's expiry; returns `expiresInMs` for the client. */
  #arm(subscription: Subscription, expiresAt: number | null): number | null {
    clearTimeout(subscription.expiryTimer);
    subscription.expiresAt = expiresAt;
    if (expiresAt === null) return null;
    const inMs = Math.max(0, expiresAt - this.#deps.clock());
    subscription.expiryTimer = setTimeout(() => {
      const message =
        subscription.flow === 'machine' ? 'Session expired' : 'Datasource session token expired';
      this.#close(subscription, 'token_expired', message);
    }, inMs);
    subscription.expiryTimer.unref();
    return inMs;
  }

  #upstreamFailed(subscription: Subscription, reason: FailReason, message: string): void {
    // The upstream has already let go of it.
    subscription.attachment = undefined;
    this.#close(subscription, reason, message);
  }

  /** Ends a subscription without a message (its socket is gone). */
  #end(subscription: Subscription): void {
    if (subscription.closed) return;
    subscription.closed = true;
    clearTimeout(subscription.expiryTimer);
    subscription.attachment?.detach();
    subscription.attachment = undefined;
    this.#machine.get(subscription)?.close();
    this.#machine.delete(subscription);
    this.#subscriptions.delete(subscription);
    const set = this.#byDashboard.get(subscription.dashboardId);
    set?.delete(subscription);
    if (set?.size === 0) this.#byDashboard.delete(subscription.dashboardId);
    if (subscription.client.subscriptions.get(subscription.id) === subscription)
      subscription.client.subscriptions.delete(subscription.id);
    subscription.client.subscriptionsChanged();
  }

  #close(subscription: Subscription, reason: ClosedReason, message: string, extra: ClosedExtra = {}): void {
    if (subscription.closed) return;
    this.#end(subscription);
    this.#sendClosed(subscription.client, subscription.id, reason, message, extra);
    this.#deps.logger.info(
      {
        event: 'gateway.subscription.closed',
        socket: subscription.client.id,
        id: subscription.id,
        dashboard: subscription.dashboardId,
        datasource: subscription.datasourceId,
        kind: subscription.kind,
        flow: subscription.flow,
        reason,
        cause: extra.cause,
      },
      'gateway.subscription.closed',
    );
  }

  // ---- renew (§3.4, §8) ----

  async #renew(client: ClientSocket, m: Message): Promise<void> {
    const subscription = this.#live(client, m);
    if (!subscription) return;
    const renewFailed = (message: string) =>
      client.send({ type: 'error', id: subscription.id, code: 'RENEW_FAILED', message });
    if (subscription.flow === 'machine') {
      const auth = this.#auth(m.auth);
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
          expiresInMs: this.#arm(subscription, grant.expiresAt),
        });
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        this.#revoke(subscription, error.message, this.#machineCause(error.message));
      }
      return;
    }
    if (typeof m.sessionToken !== 'string' || m.sessionToken === '') {
      this.#invalid(client, 'sessionToken is required', subscription.id);
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
    const answer = await this.#introspect(subscription, token);
    if (subscription.closed) return;
    if ('error' in answer) {
      if (answer.status === 401 || answer.status >= 500)
        renewFailed(answer.status === 401 ? INVALID_SESSION_TOKEN : 'Internal error');
      else this.#revoke(subscription, answer.error, causeOf(answer.error));
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
      expiresInMs: this.#arm(subscription, verified.exp * 1000),
    });
  }

  /** §5.1 for a live subscription: the token must still carry its dashboard and datasource. */
  #introspect(subscription: Subscription, token: string) {
    return introspect(this.#deps.introspection, token, subscription.dashboardId, subscription.datasourceId);
  }

  // ---- revocation (§6) ----

  #revoke(subscription: Subscription, message: string, cause: string): void {
    this.#close(subscription, 'revoked', message, { cause });
  }

  #machineCause(message: string, trigger?: string): string {
    if (trigger && REVOKE_TRIGGERS.has(trigger)) return trigger;
    if (message === 'Datasource not found' || message === 'Datasource disabled') return 'datasource_changed';
    return 'access_revoked';
  }

  #onChange(change: Change): void {
    const all = [...this.#subscriptions];
    if (change.kind === 'dashboard') {
      const affected = [...(this.#byDashboard.get(change.dashboardId) ?? [])];
      if (change.deleted) {
        for (const s of affected) this.#revoke(s, 'Dashboard not found', 'dashboard_deleted');
        return;
      }
      for (const s of affected) void this.#revalidate(s, change.reason);
      return;
    }
    if (change.kind === 'user') {
      for (const s of all)
        if (s.claims?.sub === change.userId || (s.flow === 'machine' && s.userId === change.userId))
          void this.#revalidate(s);
      return;
    }
    if (change.kind === 'profile') {
      for (const s of all)
        if (
          s.intent &&
          (s.claims?.credentialProfileId === change.profileId ||
            s.intent.brokerProfileId === change.profileId ||
            // A broker's own credential profile is not in the token: every MQTT stream re-checks.
            (change.profileType === 'credential' && s.kind === 'mqtt'))
        )
          void this.#revalidate(s);
      return;
    }
    if (change.kind === 'serviceAccount')
      for (const s of all) if (s.claims?.sub === `sa:${change.serviceAccountId}`) void this.#revalidate(s);
  }

  /** The sweep (§6.1): every live subscription re-checks. */
  revalidateAll(): void {
    for (const subscription of [...this.#subscriptions]) void this.#revalidate(subscription);
  }

  async #revalidate(subscription: Subscription, trigger?: string): Promise<void> {
    try {
      if (subscription.flow === 'machine') {
        try {
          const grant = await checkMachineRead(
            this.#deps,
            subscription.auth ?? {},
            subscription.dashboardId,
            subscription.datasourceId,
          );
          subscription.userId = grant.userId;
        } catch (error) {
          if (!(error instanceof Refusal)) throw error;
          this.#revoke(subscription, error.message, this.#machineCause(error.message, trigger));
        }
        return;
      }
      const answer = await this.#introspect(subscription, subscription.token as string);
      if (subscription.closed) return;
      if ('error' in answer) {
        if (answer.status === 401)
          this.#close(subscription, 'token_expired', 'Datasource session token expired');
        else this.#revoke(subscription, answer.error, causeOf(answer.error, trigger));
        return;
      }
      const intent = answer.intent;
      if (
        intent.protocol === 'mqtt' &&
        !topicAllowed((intent.topicAllowlist as string[]) ?? [], String(intent.topic))
      ) {
        this.#revoke(subscription, 'Topic not allowed by the broker profile', 'topic_not_allowed');
        return;
      }
      // A rotated secret: the stream moves to the upstream of the new credentials, without `closed`.
      if (UpstreamPool.keyOf(intent) !== subscription.attachment?.key && subscription.attachment) {
        const old = subscription.attachment;
        subscription.intent = intent;
        try {
          subscription.attachment = this.#deps.pool.attach(intent, subscription);
        } catch (error) {
          if (!(error instanceof BrokerLimitError)) throw error;
          this.#close(subscription, 'limit_reached', error.message);
        } finally {
          old.detach();
        }
      }
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'realtime revalidation failed');
    }
  }

  // ---- shutdown ----

  /** §10: `closed` `server_shutdown` to every subscription, sockets 1001, all within 2 s. */
  async close(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    clearInterval(this.#sweep);
    this.#unsubscribeBus();
    const clients = [...this.#clients];
    for (const client of clients) {
      for (const subscription of [...client.subscriptions.values()])
        this.#close(subscription, 'server_shutdown', 'Server shutting down');
      client.close(...CLOSE.shutdown);
    }
    this.#deps.pool.closeAll();
    await new Promise<void>((resolve) => {
      const deadline = setTimeout(resolve, SHUTDOWN_GRACE_MS);
      deadline.unref();
      this.#wss.close(() => {
        clearTimeout(deadline);
        resolve();
      });
    });
    // A client that did not answer the close handshake within the grace period is cut off.
    for (const ws of this.#wss.clients) ws.terminate();
  }
}

export type { MachineGrant };
