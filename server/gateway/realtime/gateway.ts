// The realtime socket of gateway spec §3, wired: upgrades pass admission (`admission.ts`), messages
// are read here and handed to the subscribe flows (`flows.ts`), the books are kept in `registry.ts`,
// and the change bus and the sweep revoke (`revocation.ts`, §6). Shutdown (§10) is here too.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { ClientAddresses } from '../../http/client-address.ts';
import type { GatewayMetrics } from '../metrics.ts';
import { type AdmissionDeps, admitUpgrade, REALTIME_PATH } from './admission.ts';
import type { MachineGrant } from './authorise.ts';
import { ClientSocket } from './client-socket.ts';
import { type FlowDeps, invalid, liveSubscription, type Message, SubscribeFlows } from './flows.ts';
import { CLOSE, SHUTDOWN_GRACE_MS, SUBPROTOCOL } from './protocol.ts';
import { SubscriptionRegistry } from './registry.ts';
import { Revocation, type RevocationDeps } from './revocation.ts';
import { backgroundTimers, type Timers } from './timers.ts';

export { REALTIME_PATH };

const MAX_SERVER_FRAME = 1024 * 1024;

export interface RealtimeDeps extends AdmissionDeps, FlowDeps, Omit<RevocationDeps, 'timers'> {
  clientAddresses: ClientAddresses;
  gatewaySecret: string;
  metrics: GatewayMetrics;
  /** Expiries, the sweep and the shutdown grace; tests may drive them by hand. */
  timers?: Timers;
}

export class RealtimeGateway {
  readonly #deps: RealtimeDeps;
  readonly #timers: Timers;
  readonly #wss: WebSocketServer;
  readonly #registry: SubscriptionRegistry;
  readonly #flows: SubscribeFlows;
  readonly #revocation: Revocation;
  #stopping = false;

  constructor(deps: RealtimeDeps) {
    this.#deps = deps;
    const timers = deps.timers ?? backgroundTimers;
    this.#timers = timers;
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_SERVER_FRAME,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
    this.#registry = new SubscriptionRegistry({ ...deps, timers });
    this.#flows = new SubscribeFlows(deps, this.#registry, deps.gatewaySecret, () => this.#stopping);
    this.#revocation = new Revocation({ ...deps, timers }, this.#registry);
  }

  /** Whether a socket of this client is still open here (tests watch slow clients being dropped). */
  hasSocketOf(remote: object): boolean {
    const port = (remote as { _socket?: { localPort?: number } })._socket?.localPort;
    return [...this.#registry.clients].some((client) => client.remotePort === port);
  }

  get subscriptionCount(): number {
    return this.#registry.size;
  }

  /** The sweep (§6.1): every live subscription re-checks. */
  revalidateAll(): void {
    this.#revocation.revalidateAll();
  }

  // ---- upgrade (§3.1) ----

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ip = admitUpgrade(this.#deps, this.#registry, this.#stopping, request, socket);
    if (ip === null) return;
    const { metrics, logger } = this.#deps;
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      metrics.realtimeConnectionsAccepted += 1;
      metrics.realtimeActiveConnections += 1;
      const client = new ClientSocket(ws, ip, request.socket.remotePort, metrics, {
        message: (c, text) => this.#onMessage(c, text),
        closed: (c, code) => this.#onClosed(c, code),
      });
      this.#registry.addClient(client);
      logger.info({ event: 'gateway.socket.opened', socket: client.id, ip }, 'gateway.socket.opened');
    });
  }

  #onClosed(client: ClientSocket, code: number): void {
    this.#deps.metrics.realtimeActiveConnections -= 1;
    // A closed socket ends its subscriptions silently.
    this.#registry.removeClient(client);
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

  #onMessage(client: ClientSocket, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      invalid(client, 'Message is not valid JSON');
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      invalid(client, 'type is required');
      return;
    }
    const m = message as Message;
    if (typeof m.type !== 'string' || m.type === '') {
      invalid(client, 'type is required');
      return;
    }
    switch (m.type) {
      case 'ping': {
        const nonce = typeof m.nonce === 'string' && m.nonce.length <= 64 ? m.nonce : undefined;
        client.send({ type: 'pong', ...(nonce === undefined ? {} : { nonce }) });
        return;
      }
      case 'unsubscribe': {
        const subscription = liveSubscription(client, m);
        if (subscription) this.#registry.close(subscription, 'unsubscribed', 'Unsubscribed');
        return;
      }
      case 'subscribe':
        this.#flows.subscribe(client, m).catch((error: unknown) => this.#internal(client, m, error));
        return;
      case 'renew':
        this.#flows.renew(client, m).catch((error: unknown) => this.#internal(client, m, error));
        return;
      default:
        invalid(client, `Unknown message type ${m.type.slice(0, 64)}`);
    }
  }

  #internal(client: ClientSocket, m: Message, error: unknown): void {
    this.#deps.logger.error({ err: error, socket: client.id }, 'realtime gateway message failed');
    const id = typeof m.id === 'string' ? m.id : null;
    client.pending.delete(id ?? '');
    const live = id === null ? undefined : client.subscriptions.get(id);
    if (live) this.#registry.close(live, 'unavailable', 'Internal error', { retryAfterMs: 30_000 });
    else if (m.type === 'subscribe')
      this.#registry.sendClosed(client, id, 'unavailable', 'Internal error', { retryAfterMs: 30_000 });
    client.subscriptionsChanged();
  }

  // ---- shutdown ----

  /** §10: `closed` `server_shutdown` to every subscription, sockets 1001, all within 2 s. */
  async close(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#revocation.stop();
    for (const client of [...this.#registry.clients]) {
      for (const subscription of [...client.subscriptions.values()])
        this.#registry.close(subscription, 'server_shutdown', 'Server shutting down');
      client.close(...CLOSE.shutdown);
    }
    this.#deps.pool.closeAll();
    await new Promise<void>((resolve) => {
      const deadline = this.#timers.setTimeout(resolve, SHUTDOWN_GRACE_MS);
      this.#wss.close(() => {
        this.#timers.clearTimeout(deadline);
        resolve();
      });
    });
    // A client that did not answer the close handshake within the grace period is cut off.
    for (const ws of this.#wss.clients) ws.terminate();
  }
}

export type { MachineGrant };
