// The realtime gateway's books (gateway spec §3.2): the open sockets with their count per address, and
// the live subscriptions, indexed by dashboard, with their credential expiry and `machine` deliveries.
// Registering sends `subscribed`; closing sends `closed`; ending is silent (the socket is gone).
import type { Now } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { ClientSocket } from './client-socket.ts';
import type { MachineDelivery } from './machine-feed.ts';
import { type ClosedExtra, type ClosedReason, ERROR_REASONS } from './protocol.ts';
import type { Subscription } from './subscription.ts';
import type { Timers } from './timers.ts';

export interface RegistryDeps {
  metrics: GatewayMetrics;
  logger: Logger;
  /** Wall time: credential expiries are instants on it. */
  clock: Now;
  timers: Timers;
}

export class SubscriptionRegistry {
  readonly #deps: RegistryDeps;
  readonly #clients = new Set<ClientSocket>();
  readonly #perIp = new Map<string, number>();
  readonly #subscriptions = new Set<Subscription>();
  readonly #byDashboard = new Map<string, Set<Subscription>>();
  readonly #machine = new Map<Subscription, MachineDelivery>();

  constructor(deps: RegistryDeps) {
    this.#deps = deps;
  }

  // ---- sockets ----

  get clients(): ReadonlySet<ClientSocket> {
    return this.#clients;
  }

  openFrom(ip: string): number {
    return this.#perIp.get(ip) ?? 0;
  }

  /** Counts a socket of `ip` before its handshake finishes, so a burst cannot overshoot the caps. */
  reserve(ip: string): void {
    this.#perIp.set(ip, this.openFrom(ip) + 1);
  }

  addClient(client: ClientSocket): void {
    this.#clients.add(client);
  }

  /** Forgets a closed socket and ends its subscriptions silently. */
  removeClient(client: ClientSocket): void {
    this.#clients.delete(client);
    const left = (this.#perIp.get(client.ip) ?? 1) - 1;
    if (left <= 0) this.#perIp.delete(client.ip);
    else this.#perIp.set(client.ip, left);
    for (const subscription of [...client.subscriptions.values()]) this.end(subscription);
  }

  // ---- subscriptions ----

  get size(): number {
    return this.#subscriptions.size;
  }

  all(): Subscription[] {
    return [...this.#subscriptions];
  }

  onDashboard(dashboardId: string): Subscription[] {
    return [...(this.#byDashboard.get(dashboardId) ?? [])];
  }

  /** How many sockets other than `client` stream from the dashboard. */
  otherSocketsOn(dashboardId: string, client: ClientSocket): number {
    const others = new Set<ClientSocket>();
    for (const subscription of this.#byDashboard.get(dashboardId) ?? [])
      if (subscription.client !== client) others.add(subscription.client);
    return others.size;
  }

  /** Makes a checked subscription live: indexed, `subscribed` sent, its expiry armed. */
  register(subscription: Subscription, expiresAt: number | null): void {
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
      expiresInMs: this.arm(subscription, expiresAt),
    });
  }

  /** The `machine` delivery of a registered subscription, stopped when it ends. */
  deliver(subscription: Subscription, delivery: MachineDelivery): void {
    this.#machine.set(subscription, delivery);
  }

  /** Sets the credential's expiry; returns `expiresInMs` for the client. */
  arm(subscription: Subscription, expiresAt: number | null): number | null {
    const { timers } = this.#deps;
    timers.clearTimeout(subscription.expiryTimer);
    subscription.expiresAt = expiresAt;
    if (expiresAt === null) return null;
    const inMs = Math.max(0, expiresAt - this.#deps.clock());
    subscription.expiryTimer = timers.setTimeout(() => {
      const message =
        subscription.flow === 'machine' ? 'Session expired' : 'Datasource session token expired';
      this.close(subscription, 'token_expired', message);
    }, inMs);
    return inMs;
  }

  /** Ends a subscription without a message (its socket is gone). */
  end(subscription: Subscription): void {
    if (subscription.closed) return;
    subscription.closed = true;
    this.#deps.timers.clearTimeout(subscription.expiryTimer);
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

  close(subscription: Subscription, reason: ClosedReason, message: string, extra: ClosedExtra = {}): void {
    if (subscription.closed) return;
    this.end(subscription);
    this.sendClosed(subscription.client, subscription.id, reason, message, extra);
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

  /** A `closed` message, counted as an error where §9 says so. */
  sendClosed(
    client: ClientSocket,
    id: string | null,
    reason: ClosedReason,
    message: string,
    extra: ClosedExtra = {},
  ): void {
    if (ERROR_REASONS.has(reason)) this.#deps.metrics.realtimeErrorCount += 1;
    client.send({ type: 'closed', id, reason, message, ...extra });
  }
}
