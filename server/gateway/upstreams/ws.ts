// A WebSocket upstream (gateway spec §4.3): one connection per intent, shared; nothing is ever sent
// upstream but pings; binary frames are read as UTF-8; an oversized frame drops the connection.
import WebSocket from 'ws';
import type { ResolvedAddress } from '../egress.ts';
import { intentHeaders, pinnedLookup, tlsFailureCode } from './connect.ts';
import { UpstreamMessage } from './payload.ts';
import { SharedUpstream } from './shared.ts';
import { retriableStatus } from './sse.ts';

export const UPSTREAM_PING_MS = 30_000;

export class WsUpstream extends SharedUpstream {
  #socket: WebSocket | undefined;
  #idle: NodeJS.Timeout | undefined;
  #ping: NodeJS.Timeout | undefined;

  protected connect(address: ResolvedAddress): void {
    const protocols = Array.isArray(this.intent.protocols) ? (this.intent.protocols as string[]) : [];
    const socket = new WebSocket(this.url, protocols, {
      headers: intentHeaders(this.intent.headers),
      lookup: pinnedLookup(address),
      handshakeTimeout: this.ctx.connectTimeoutMs,
      maxPayload: this.ctx.maxMessageBytes,
      followRedirects: false,
      perMessageDeflate: false,
    } as WebSocket.ClientOptions);
    this.#socket = socket;
    const idleMs = Number(this.intent.idleTimeoutMs) || 300_000;
    const armIdle = () => {
      clearTimeout(this.#idle);
      this.#idle = setTimeout(() => this.#lost(socket, 'Upstream was idle for too long'), idleMs);
      this.#idle.unref();
    };
    socket.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      if (this.#socket !== socket) return;
      if (retriableStatus(status)) this.#lost(socket, `Upstream responded with status ${status}`);
      else this.failAll('upstream_failed', `Upstream rejected the connection with status ${status}`);
    });
    socket.on('open', () => {
      if (this.#socket !== socket) return;
      this.connected();
      armIdle();
      this.#ping = setInterval(() => socket.ping(), UPSTREAM_PING_MS);
      this.#ping.unref();
    });
    socket.on('pong', armIdle);
    socket.on('message', (data: WebSocket.RawData) => {
      if (this.#socket !== socket) return;
      armIdle();
      const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      this.deliver(new UpstreamMessage(buffer.toString('utf8'), buffer.length, new Date().toISOString()));
    });
    socket.on('error', (error: Error & { code?: string }) => {
      if (this.#socket !== socket) return;
      const tls = tlsFailureCode(error);
      if (tls) {
        this.failAll('upstream_failed', `Upstream TLS handshake failed: ${tls}`);
        return;
      }
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH')
        this.problem(
          'MESSAGE_TOO_LARGE',
          `Upstream message exceeds the limit of ${this.ctx.maxMessageBytes} bytes`,
        );
      this.#lost(socket, 'Upstream connection failed');
    });
    socket.on('close', () => this.#lost(socket, 'Upstream closed the connection'));
  }

  #lost(socket: WebSocket, message: string): void {
    if (this.#socket !== socket || this.closed) return;
    this.retry(message);
  }

  protected teardown(): void {
    clearTimeout(this.#idle);
    clearInterval(this.#ping);
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket) {
      socket.removeAllListeners('message');
      socket.on('error', () => {});
      socket.terminate();
    }
  }
}
