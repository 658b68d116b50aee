// The gateway client's state machine on a manual clock with a scripted socket: renewal timing on the
// gateway's `expiresInMs`, resubscription after a lost socket, a new token after `token_expired`.
import { describe, expect, it } from 'vitest';
import {
  GatewayClient,
  type GatewayMessage,
  reconnectDelay,
  renewDelay,
  type SocketLike,
  type Timers,
} from './gateway-client.ts';

class ManualTimers implements Timers {
  time = 0;
  #next = 1;
  readonly #due = new Map<number, { at: number; callback: () => void }>();
  setTimeout(callback: () => void, ms: number) {
    const handle = this.#next++;
    this.#due.set(handle, { at: this.time + ms, callback });
    return handle;
  }
  clearTimeout(handle: unknown) {
    this.#due.delete(handle as number);
  }
  now() {
    return this.time;
  }
  /** Moves the clock, running what falls due in order. */
  async advance(ms: number) {
    const end = this.time + ms;
    for (;;) {
      const [handle, next] = [...this.#due.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (handle === undefined || !next || next.at > end) break;
      this.#due.delete(handle);
      this.time = next.at;
      next.callback();
      await flush();
    }
    this.time = end;
  }
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: GatewayMessage[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  /** Answers pings as the gateway does; `silent` plays a dead server. */
  silent = false;
  send(data: string) {
    const message = JSON.parse(data) as GatewayMessage;
    this.sent.push(message);
    if (message.type === 'ping' && !this.silent) queueMicrotask(() => this.deliver({ type: 'pong' }));
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  deliver(message: GatewayMessage) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop() {
    this.readyState = 3;
    this.onclose?.({});
  }
}

function setup() {
  const timers = new ManualTimers();
  const sockets: FakeSocket[] = [];
  const client = new GatewayClient({
    url: 'ws://workstation/gateway/realtime',
    timers,
    random: () => 0.5,
    createSocket: () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
  });
  let minted = 0;
  const values: unknown[] = [];
  const statuses: string[] = [];
  const unsubscribe = client.subscribe({
    dashboardId: 'd1',
    datasourceId: 'temps',
    credential: async () => ({ sessionToken: `token-${++minted}` }),
    onData: (value) => values.push(value),
    onStatus: (status) => statuses.push(status),
  });
  return { timers, sockets, client, values, statuses, unsubscribe, minted: () => minted };
}

describe('gateway client', () => {
  it('computes the spec renewal point and reconnect backoff', () => {
    expect(renewDelay(300_000)).toBe(240_000);
    expect(renewDelay(60_000)).toBe(30_000);
    expect(reconnectDelay(1, () => 0.5)).toBe(1000);
    expect(reconnectDelay(6, () => 1)).toBe(36_000);
    expect(reconnectDelay(9, () => 0)).toBe(24_000);
  });

  it('subscribes on open and renews before expiry without interrupting data', async () => {
    const { timers, sockets, values, minted } = setup();
    const socket = sockets[0] as FakeSocket;
    socket.open();
    await flush();
    expect(socket.sent).toEqual([
      { type: 'subscribe', id: 's1', dashboardId: 'd1', datasourceId: 'temps', sessionToken: 'token-1' },
    ]);
    socket.deliver({ type: 'subscribed', id: 's1', kind: 'sse', expiresInMs: 300_000 });
    socket.deliver({ type: 'data', id: 's1', seq: 1, value: 1 });
    await timers.advance(239_000);
    expect(minted()).toBe(1);
    await timers.advance(1000);
    expect(minted()).toBe(2);
    expect(socket.sent.at(-1)).toMatchObject({ type: 'renew', id: 's1', sessionToken: 'token-2' });
    socket.deliver({ type: 'data', id: 's1', seq: 2, value: 2 });
    socket.deliver({ type: 'renewed', id: 's1', expiresInMs: 300_000 });
    expect(values).toEqual([1, 2]);
    // Pings keep the socket alive; silence past 60 s is a dead socket, replaced by a new one.
    expect(socket.sent.some((m) => m.type === 'ping')).toBe(true);
    expect(sockets).toHaveLength(1);
    socket.silent = true;
    await timers.advance(60_000 + 1000);
    expect(sockets).toHaveLength(2);
  });

  it('after a lost socket reconnects with backoff and re-sends the subscription with its unexpired token', async () => {
    const { timers, sockets, statuses, minted } = setup();
    (sockets[0] as FakeSocket).open();
    await flush();
    (sockets[0] as FakeSocket).deliver({ type: 'subscribed', id: 's1', kind: 'sse', expiresInMs: 300_000 });
    (sockets[0] as FakeSocket).drop();
    expect(statuses).toEqual(['lost']);
    await timers.advance(999);
    expect(sockets).toHaveLength(1);
    await timers.advance(1);
    expect(sockets).toHaveLength(2);
    const second = sockets[1] as FakeSocket;
    second.open();
    await flush();
    expect(second.sent[0]).toMatchObject({ type: 'subscribe', id: 's1', sessionToken: 'token-1' });
    expect(minted()).toBe(1);
  });

  it('gets a new token after token_expired and stops on revoked', async () => {
    const { sockets, minted, client } = setup();
    const socket = sockets[0] as FakeSocket;
    socket.open();
    await flush();
    socket.deliver({
      type: 'closed',
      id: 's1',
      reason: 'token_expired',
      message: 'Datasource session token expired',
    });
    await flush();
    expect(minted()).toBe(2);
    expect(socket.sent.at(-1)).toMatchObject({ type: 'subscribe', sessionToken: 'token-2' });
    const closed: GatewayMessage[] = [];
    client.subscribe({
      dashboardId: 'd1',
      datasourceId: 'm',
      credential: async () => ({ auth: {} }),
      onData: () => {},
      onClosed: (message) => closed.push(message),
    });
    await flush();
    socket.deliver({
      type: 'closed',
      id: 's2',
      reason: 'revoked',
      message: 'Access revoked',
      cause: 'access_revoked',
    });
    expect(closed).toHaveLength(1);
    const before = socket.sent.length;
    socket.deliver({ type: 'data', id: 's2', seq: 1, value: 1 });
    expect(socket.sent.length).toBe(before);
  });
});
