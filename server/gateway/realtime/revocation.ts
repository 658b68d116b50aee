// Revocation (gateway spec §6): a change on the in-process bus re-checks the subscriptions it may
// affect, and a sweep re-checks every live one on an interval. A subscription whose credential no
// longer holds is closed `revoked` with its cause; a rotated secret moves it to a new upstream.
import type { Change, ChangeBus } from '../../dashboards/bus.ts';
import type { Logger } from '../../log.ts';
import { topicAllowed } from '../../profiles/topics.ts';
import type { IntrospectionDeps } from '../internal/introspect.ts';
import type { GatewaySettings } from '../settings.ts';
import { BrokerLimitError, UpstreamPool } from '../upstreams/pool.ts';
import { checkMachineRead, introspect, type MachineCheckDeps } from './authorise.ts';
import { causeOf, Refusal } from './protocol.ts';
import type { SubscriptionRegistry } from './registry.ts';
import type { Subscription } from './subscription.ts';
import type { TimerHandle, Timers } from './timers.ts';

const REVOKE_TRIGGERS = new Set([
  'visibility_changed',
  'share_token_rotated',
  'owner_offboarded',
  'dashboard_deleted',
]);

/** What re-checking a live subscription needs: introspection for tokens, the read check for `machine`. */
export interface CheckDeps extends MachineCheckDeps {
  introspection: IntrospectionDeps;
}

export interface RevocationDeps extends CheckDeps {
  settings: GatewaySettings;
  logger: Logger;
  bus: ChangeBus;
  pool: UpstreamPool;
  timers: Timers;
}

export function revoke(
  registry: SubscriptionRegistry,
  subscription: Subscription,
  message: string,
  cause: string,
): void {
  registry.close(subscription, 'revoked', message, { cause });
}

/** The `cause` of a `machine` revocation: the change's trigger where it names one, else from the refusal. */
export function machineCause(message: string, trigger?: string): string {
  if (trigger && REVOKE_TRIGGERS.has(trigger)) return trigger;
  if (message === 'Datasource not found' || message === 'Datasource disabled') return 'datasource_changed';
  return 'access_revoked';
}

/** §5.1 for a live subscription: the token must still carry its dashboard and datasource. */
export function introspectLive(deps: CheckDeps, subscription: Subscription, token: string) {
  return introspect(deps.introspection, token, subscription.dashboardId, subscription.datasourceId);
}

export class Revocation {
  readonly #deps: RevocationDeps;
  readonly #registry: SubscriptionRegistry;
  readonly #unsubscribeBus: () => void;
  #sweep: TimerHandle;

  constructor(deps: RevocationDeps, registry: SubscriptionRegistry) {
    this.#deps = deps;
    this.#registry = registry;
    this.#unsubscribeBus = deps.bus.subscribe((change) => this.#onChange(change));
    const every = deps.settings.revalidateIntervalSeconds * 1000;
    const sweep = () => {
      this.#sweep = deps.timers.setTimeout(sweep, every);
      this.revalidateAll();
    };
    this.#sweep = deps.timers.setTimeout(sweep, every);
  }

  stop(): void {
    this.#deps.timers.clearTimeout(this.#sweep);
    this.#unsubscribeBus();
  }

  /** The sweep (§6.1): every live subscription re-checks. */
  revalidateAll(): void {
    for (const subscription of this.#registry.all()) void this.#revalidate(subscription);
  }

  #onChange(change: Change): void {
    const registry = this.#registry;
    const all = registry.all();
    if (change.kind === 'dashboard') {
      const affected = registry.onDashboard(change.dashboardId);
      if (change.deleted) {
        for (const s of affected) revoke(registry, s, 'Dashboard not found', 'dashboard_deleted');
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

  async #revalidate(subscription: Subscription, trigger?: string): Promise<void> {
    const registry = this.#registry;
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
          revoke(registry, subscription, error.message, machineCause(error.message, trigger));
        }
        return;
      }
      const answer = await introspectLive(this.#deps, subscription, subscription.token as string);
      if (subscription.closed) return;
      if ('error' in answer) {
        if (answer.status === 401)
          registry.close(subscription, 'token_expired', 'Datasource session token expired');
        else revoke(registry, subscription, answer.error, causeOf(answer.error, trigger));
        return;
      }
      const intent = answer.intent;
      if (
        intent.protocol === 'mqtt' &&
        !topicAllowed((intent.topicAllowlist as string[]) ?? [], String(intent.topic))
      ) {
        revoke(registry, subscription, 'Topic not allowed by the broker profile', 'topic_not_allowed');
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
          registry.close(subscription, 'limit_reached', error.message);
        } finally {
          old.detach();
        }
      }
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'realtime revalidation failed');
    }
  }
}
