// The registry's books and credential expiry, on a manual clock: an expiry closes the subscription
// with `token_expired` when its instant comes and not before, renewal re-arms it, and a socket that
// goes away ends its subscriptions without a message.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/machine/clock.ts';
import { createLogger } from '../../log.ts';
import { GatewayMetrics } from '../metrics.ts';
import type { ClientSocket } from './client-socket.ts';
import { SubscriptionRegistry } from './registry.ts';
import { type Flow, Subscription } from './subscription.ts';

/** The part of a socket the registry touches: its subscriptions and what it was sent. */
function socket(ip = '10.0.0.7') {
  const sent: Record<string, unknown>[] = [];
  const client = {
    id: 'c1',
    ip,
    subscriptions: new Map<string, Subscription>(),
    pending: new Set<string>(),
    subscriptionsChanged: () => {},
    send: (message: Record<string, unknown>) => sent.push(message),
  } as unknown as ClientSocket;
  return { client, sent };
}

function setUp() {
  const timers = new ManualClock();
  const wall = { now: Date.parse('2026-11-27T12:00:00.000Z') };
  const clock = () => wall.now + timers.now();
  const metrics = new GatewayMetrics(clock);
  const registry = new SubscriptionRegistry({ metrics, logger: createLogger('silent'), clock, timers });
  const subscribe = (client: ClientSocket, id: string, flow: Flow = 'user') =>
    new Subscription({
      id,
      client,
      dashboardId: 'd1',
      datasourceId: 'ds1',
      kind: flow === 'machine' ? 'machine' : 'sse',
      flow,
      onFail: () => {},
    });
  return { timers, clock, metrics, registry, subscribe };
}

describe('SubscriptionRegistry', () => {
  it('closes a subscription token_expired when its credential expires, not before', () => {
    const { timers, clock, registry, subscribe } = setUp();
    const { client, sent } = socket();
    const subscription = subscribe(client, 's1');
    registry.register(subscription, clock() + 60_000);
    expect(sent).toEqual([{ type: 'subscribed', id: 's1', kind: 'sse', expiresInMs: 60_000 }]);
    timers.advance(59_999);
    expect(registry.size).toBe(1);
    timers.advance(1);
    expect(sent.at(-1)).toEqual({
      type: 'closed',
      id: 's1',
      reason: 'token_expired',
      message: 'Datasource session token expired',
    });
    expect([registry.size, client.subscriptions.size, timers.pending]).toEqual([0, 0, 0]);
  });

  it('re-arms the expiry on renewal, and a machine grant without one never expires', () => {
    const { timers, clock, registry, subscribe } = setUp();
    const { client, sent } = socket();
    const subscription = subscribe(client, 's1', 'machine');
    registry.register(subscription, clock() + 1_000);
    timers.advance(500);
    expect(registry.arm(subscription, clock() + 1_000)).toBe(1_000);
    timers.advance(999);
    expect(subscription.closed).toBe(false);
    timers.advance(1);
    expect(sent.at(-1)).toMatchObject({ reason: 'token_expired', message: 'Session expired' });

    const open = subscribe(client, 's2', 'machine');
    registry.register(open, null);
    expect(sent.at(-1)).toEqual({ type: 'subscribed', id: 's2', kind: 'machine', expiresInMs: null });
    expect(timers.pending).toBe(0);
  });

  it('counts sockets per address and ends a gone socket’s subscriptions silently', () => {
    const { timers, clock, registry, subscribe, metrics } = setUp();
    const { client, sent } = socket('10.0.0.9');
    registry.reserve('10.0.0.9');
    registry.reserve('10.0.0.9');
    registry.addClient(client);
    expect(registry.openFrom('10.0.0.9')).toBe(2);
    registry.register(subscribe(client, 's1'), clock() + 60_000);
    registry.register(subscribe(client, 's2'), clock() + 60_000);
    expect(registry.onDashboard('d1')).toHaveLength(2);
    const before = sent.length;
    registry.removeClient(client);
    expect(sent).toHaveLength(before);
    expect([registry.size, registry.onDashboard('d1').length, registry.openFrom('10.0.0.9')]).toEqual([
      0, 0, 1,
    ]);
    expect(timers.pending).toBe(0);
    expect(metrics.realtimeErrorCount).toBe(0);
  });
});
