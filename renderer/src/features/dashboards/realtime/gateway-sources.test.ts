// Streamed datasources against a scripted gateway client: one link per view, credentials per type,
// the gateway's callbacks turned into statuses, mint retries, and one resubscription after a
// revocation.
import { describe, expect, it } from 'vitest';
import type { GatewayCredential, StreamHandlers } from '../../../lib/gateway-client.ts';
import type { Datasource } from '../document.ts';
import { createGatewaySources, type GatewayLink, SOCKET_LOST } from './gateway-sources.ts';
import { MintError } from './http-source.ts';
import type { SourceContext, SourceUpdate } from './sources.ts';

interface FakeLink extends GatewayLink {
  streams: StreamHandlers[];
  unsubscribed: string[];
  closed: boolean;
}

function harness(mints: (MintError | string)[] = []) {
  const links: FakeLink[] = [];
  const timers: { ms: number; run: () => void }[] = [];
  let now = 0;
  const factory = createGatewaySources({
    connect: () => {
      const link: FakeLink = {
        streams: [],
        unsubscribed: [],
        closed: false,
        subscribe(handlers) {
          link.streams.push(handlers);
          return () => link.unsubscribed.push(handlers.datasourceId);
        },
        close() {
          link.closed = true;
        },
      };
      links.push(link);
      return link;
    },
    setTimeout: (run, ms) => {
      const timer = { ms, run };
      timers.push(timer);
      return timer;
    },
    clearTimeout: (handle) => {
      const i = timers.indexOf(handle as (typeof timers)[number]);
      if (i >= 0) timers.splice(i, 1);
    },
  });
  let minted = 0;
  const context = (shareToken: string | null = null, bearer: string | null = 'jwt'): SourceContext => ({
    dashboardId: 'd1',
    shareToken,
    bearer: () => bearer,
    now: () => now,
    mint: async (datasourceId) => {
      minted += 1;
      const next = mints.shift() ?? `${datasourceId}-t${minted}`;
      if (next instanceof MintError) throw next;
      return { token: next, expiresAt: new Date(now + 300_000).toISOString() };
    },
  });
  const start = (datasource: Datasource, ctx: SourceContext) => {
    const updates: SourceUpdate[] = [];
    const stop = factory(datasource, ctx, (u) => updates.push(u));
    return { updates, stop };
  };
  return {
    links,
    timers,
    context,
    start,
    advanceClock(ms: number) {
      now += ms;
    },
    /** Fires the oldest pending timer. */
    fire() {
      const timer = timers.shift();
      timer?.run();
      return timer?.ms;
    },
  };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
const mqtt: Datasource = { id: 'temps', title: 'Temps', type: 'mqtt', settings: { topic: 'oven/+' } };
const machine: Datasource = { id: 'winder', title: 'Winder', type: 'machine', settings: {} };

describe('gateway datasources', () => {
  it('shares one link per view, closing it after the last stream of that view stops', async () => {
    const h = harness();
    const view = h.context();
    const a = h.start(mqtt, view);
    const b = h.start(machine, view);
    const other = h.start(mqtt, h.context());
    expect(h.links).toHaveLength(2);
    expect(h.links[0]?.streams.map((s) => s.datasourceId)).toEqual(['temps', 'winder']);
    expect(h.links[0]?.streams[0]?.dashboardId).toBe('d1');

    a.stop();
    await flush();
    expect(h.links[0]?.unsubscribed).toEqual(['temps']);
    expect(h.links[0]?.closed).toBe(false);
    // Restarting an edited datasource in one go keeps the socket.
    b.stop();
    const again = h.start(machine, view);
    await flush();
    expect(h.links).toHaveLength(2);
    expect(h.links[0]?.closed).toBe(false);
    again.stop();
    await flush();
    expect(h.links[0]?.closed).toBe(true);
    expect(h.links[1]?.closed).toBe(false);
    other.stop();
    await flush();
    expect(h.links[1]?.closed).toBe(true);
    // A view that starts streaming again gets a new link.
    h.start(mqtt, view);
    expect(h.links).toHaveLength(3);
  });

  it('mints a session token for streams and passes the page auth for machine', async () => {
    const h = harness();
    h.start(mqtt, h.context());
    h.start(machine, h.context('share-1', 'jwt-1'));
    h.start(machine, h.context(null, null));
    const credentials: GatewayCredential[] = [];
    for (const link of h.links) for (const s of link.streams) credentials.push(await s.credential());
    expect(credentials).toEqual([
      { sessionToken: 'temps-t1' },
      { auth: { bearer: 'jwt-1', shareToken: 'share-1' } },
      { auth: {} },
    ]);
  });

  it('reuses a token when the view opens again, while it has a minute left, and only for the same binding', async () => {
    const h = harness();
    const credentialOf = async (ctx: SourceContext, datasource = mqtt) => {
      const started = h.start(datasource, ctx);
      const link = h.links.at(-1);
      const credential = await link?.streams.at(-1)?.credential();
      started.stop();
      await flush();
      return credential;
    };
    expect(await credentialOf(h.context())).toEqual({ sessionToken: 'temps-t1' });
    // Opened again (a new view of the same dashboard, same session): the kept token.
    expect(await credentialOf(h.context())).toEqual({ sessionToken: 'temps-t1' });
    // Another session, another share token, or a changed datasource: a new token each.
    expect(await credentialOf(h.context(null, 'jwt-2'))).toEqual({ sessionToken: 'temps-t2' });
    expect(await credentialOf(h.context('share-1'))).toEqual({ sessionToken: 'temps-t3' });
    const edited = { ...mqtt, settings: { topic: 'oven/1' } };
    expect(await credentialOf(h.context(), edited)).toEqual({ sessionToken: 'temps-t4' });
    // 5 min tokens: with less than a minute left, a new one.
    h.advanceClock(240_001);
    expect(await credentialOf(h.context())).toEqual({ sessionToken: 'temps-t5' });
  });

  it('never reuses a token for a renewal or after a revocation', async () => {
    const h = harness();
    const first = h.start(mqtt, h.context());
    const stream = h.links[0]?.streams[0];
    expect(await stream?.credential()).toEqual({ sessionToken: 'temps-t1' });
    // The gateway client asks again to renew: a fresh token, not the kept one.
    expect(await stream?.credential()).toEqual({ sessionToken: 'temps-t2' });
    first.stop();
    await flush();
    const second = h.start(mqtt, h.context());
    const reopened = h.links.at(-1)?.streams.at(-1);
    expect(await reopened?.credential()).toEqual({ sessionToken: 'temps-t2' });
    reopened?.onClosed?.({ type: 'closed', reason: 'revoked', message: 'Share token is stale' } as never);
    const resubscribed = h.links.at(-1)?.streams.at(-1);
    expect(resubscribed).not.toBe(reopened);
    expect(await resubscribed?.credential()).toEqual({ sessionToken: 'temps-t3' });
    second.stop();
  });

  it('gives a wildcard MQTT datasource every topic’s latest payload; a removal drops its topic', () => {
    const h = harness();
    const wildcard = h.start(mqtt, h.context());
    const single = h.start({ ...mqtt, id: 'one', settings: { topic: 'oven/1' } }, h.context());
    const [stream, one] = h.links.flatMap((link) => link.streams) as StreamHandlers[];
    const data = (topic: string, value: unknown, extra: Record<string, unknown> = {}) => ({
      type: 'data',
      topic,
      value,
      ...extra,
    });
    stream?.onData({ c: 1 }, data('oven/2', { c: 1 }, { replay: true }));
    stream?.onData({ c: 5 }, data('oven/1', { c: 5 }));
    stream?.onData({ c: 6 }, data('oven/2', { c: 6 }));
    stream?.onData(null, data('oven/1', null, { removed: true }));
    expect(wildcard.updates.slice(1).map((u) => u.value)).toEqual([
      { 'oven/2': { c: 1 } },
      { 'oven/2': { c: 1 }, 'oven/1': { c: 5 } },
      { 'oven/2': { c: 6 }, 'oven/1': { c: 5 } },
      { 'oven/2': { c: 6 } },
    ]);
    // A single topic's value is the payload itself.
    one?.onData({ c: 7 }, data('oven/1', { c: 7 }));
    expect(single.updates.at(-1)).toEqual({ status: 'connected', value: { c: 7 } });
  });

  it('turns data and gateway statuses into the hub statuses of document §7.2', () => {
    const h = harness();
    const { updates } = h.start(mqtt, h.context());
    const stream = h.links[0]?.streams[0] as StreamHandlers;
    expect(updates).toEqual([{ status: 'connecting' }]);
    stream.onStatus?.('connecting', { type: 'status', id: 's1', status: 'connecting' });
    stream.onStatus?.('connected', { type: 'status', id: 's1', status: 'connected' });
    stream.onData({ celsius: 212 }, { type: 'data', id: 's1', seq: 1 });
    stream.onStatus?.('reconnecting', {
      type: 'status',
      id: 's1',
      status: 'reconnecting',
      message: 'MQTT connection lost',
      retryInMs: 2100,
    });
    stream.onStatus?.('lost', null);
    stream.onStatus?.('error', {
      type: 'closed',
      id: 's1',
      reason: 'limit_reached',
      message: 'Broker connection limit reached',
    });
    // A dropped message is not a status change.
    stream.onError?.({
      type: 'error',
      id: 's1',
      code: 'PARSE_ERROR',
      message: 'Upstream message is not valid JSON',
    });
    expect(updates.slice(1)).toEqual([
      { status: 'connecting' },
      { status: 'connected' },
      { status: 'connected', value: { celsius: 212 } },
      { status: 'error', message: 'MQTT connection lost; retrying in 2 s' },
      { status: 'error', message: SOCKET_LOST },
      { status: 'error', message: 'Broker connection limit reached' },
    ]);
    stream.onClosed?.({
      type: 'closed',
      id: 's1',
      reason: 'egress_refused',
      message: 'Upstream address refused: 127.0.0.1 (loopback)',
    });
    expect(updates.at(-1)).toEqual({
      status: 'error',
      message: 'Upstream address refused: 127.0.0.1 (loopback)',
    });
    // Closed for good: nothing is resubscribed.
    expect(h.links[0]?.streams).toHaveLength(1);
  });

  it('resubscribes once after a revocation, and leaves a second one within 10 s in error', () => {
    const h = harness();
    const { updates } = h.start(mqtt, h.context());
    const revoke = (stream: StreamHandlers | undefined) =>
      stream?.onClosed?.({
        type: 'closed',
        id: 's1',
        reason: 'revoked',
        cause: 'share_token_rotated',
        message: 'Share token is stale',
      });
    revoke(h.links[0]?.streams[0]);
    expect(updates.slice(-2)).toEqual([
      { status: 'error', message: 'Share token is stale', revoked: true },
      { status: 'connecting' },
    ]);
    expect(h.links[0]?.streams).toHaveLength(2);
    h.advanceClock(4000);
    revoke(h.links[0]?.streams[1]);
    expect(updates.at(-1)).toEqual({ status: 'error', message: 'Share token is stale', revoked: true });
    expect(h.links[0]?.streams).toHaveLength(2);
  });

  it('retries a failed mint as told or with back-off, and gives up on FORBIDDEN', async () => {
    const h = harness([
      new MintError('Too many datasource token requests. Try again in 4 seconds.', 'TOO_MANY_REQUESTS', 4),
      new MintError('The workstation did not answer', 'NETWORK'),
      new MintError('The workstation did not answer', 'NETWORK'),
      'good-token',
    ]);
    const { updates } = h.start(mqtt, h.context());
    const pending = h.links[0]?.streams[0]?.credential() as Promise<GatewayCredential>;
    await flush();
    expect(updates.at(-1)).toEqual({
      status: 'error',
      message: 'Too many datasource token requests. Try again in 4 seconds.',
    });
    expect(h.fire()).toBe(4000);
    await flush();
    expect(h.fire()).toBe(1000);
    await flush();
    expect(h.fire()).toBe(2000);
    expect(await pending).toEqual({ sessionToken: 'good-token' });

    const denied = harness([new MintError('Datasource token denied: PUBLIC_USE_NOT_ALLOWED', 'FORBIDDEN')]);
    const d = denied.start(mqtt, denied.context());
    const stream = denied.links[0]?.streams[0] as StreamHandlers;
    await expect(stream.credential()).rejects.toThrow('PUBLIC_USE_NOT_ALLOWED');
    // The gateway client reports the failed credential; the refusal is what the widget shows.
    stream.onError?.({ type: 'error', id: 's1', code: 'CREDENTIAL_FAILED', message: 'Error: …' });
    expect(d.updates.at(-1)).toEqual({
      status: 'error',
      message: 'Datasource token denied: PUBLIC_USE_NOT_ALLOWED',
    });
    expect(denied.timers).toEqual([]);
  });

  it('stops a mint waiting to retry and reports nothing after stop', async () => {
    const h = harness([new MintError('The workstation did not answer', 'NETWORK')]);
    const { updates, stop } = h.start(mqtt, h.context());
    const stream = h.links[0]?.streams[0] as StreamHandlers;
    const pending = stream.credential();
    await flush();
    expect(h.timers).toHaveLength(1);
    const before = updates.length;
    stop();
    expect(h.timers).toEqual([]);
    await expect(pending).rejects.toThrow();
    stream.onData(1, { type: 'data' });
    stream.onStatus?.('lost', null);
    expect(updates).toHaveLength(before);
  });
});
