// An SSE upstream (gateway spec §4.3): one GET per intent shared by every subscription, parsed as
// an event stream; reconnects with `last-event-id`; an idle stream counts as lost.
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { EventStreamParser } from '../../../engine/text/event-stream.ts';
import type { ResolvedAddress } from '../egress.ts';
import { intentHeaders, pinnedLookup, tlsFailureCode } from './connect.ts';
import { UpstreamMessage } from './payload.ts';
import { BACKOFF_CAP_MS, SharedUpstream } from './shared.ts';

/** 408, 429 and 5xx are worth another try; any other non-2xx status is final (§4.2). */
export const retriableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

export class SseUpstream extends SharedUpstream {
  #request: ClientRequest | undefined;
  #idle: NodeJS.Timeout | undefined;
  #lastEventId: string | null = null;
  #retryFloor = 1000;

  protected connect(address: ResolvedAddress): void {
    const headers: Record<string, string> = {
      ...intentHeaders(this.intent.headers),
      accept: 'text/event-stream',
      'cache-control': 'no-cache',
    };
    if (this.#lastEventId !== null) headers['last-event-id'] = this.#lastEventId;
    const secure = this.url.protocol === 'https:';
    const request = (secure ? httpsRequest : httpRequest)(this.url, {
      method: 'GET',
      headers,
      lookup: pinnedLookup(address),
      agent: false,
      timeout: this.ctx.connectTimeoutMs,
    });
    this.#request = request;
    const idleMs = Number(this.intent.idleTimeoutMs) || 120_000;
    const armIdle = () => {
      clearTimeout(this.#idle);
      this.#idle = setTimeout(() => this.#lost(request, 'Upstream was idle for too long'), idleMs);
      this.#idle.unref();
    };
    request.on('timeout', () => this.#lost(request, 'Upstream connection timed out'));
    request.on('error', (error) => {
      if (this.#request !== request) return;
      const tls = tlsFailureCode(error);
      if (tls) this.failAll('upstream_failed', `Upstream TLS handshake failed: ${tls}`);
      else this.#lost(request, 'Upstream connection failed');
    });
    request.on('response', (response: IncomingMessage) => {
      if (this.#request !== request) return;
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.resume();
        if (retriableStatus(status)) this.#lost(request, `Upstream responded with status ${status}`);
        else this.failAll('upstream_failed', `Upstream rejected the connection with status ${status}`);
        return;
      }
      if (
        !String(response.headers['content-type'] ?? '')
          .toLowerCase()
          .startsWith('text/event-stream')
      ) {
        response.resume();
        this.failAll('upstream_failed', 'Upstream is not an event stream');
        return;
      }
      request.setTimeout(0);
      this.connected();
      armIdle();
      const decoder = new StringDecoder('utf8');
      const parser = new EventStreamParser({
        // The message limit counts UTF-8 bytes; a line may run to twice that before it must end.
        maxEventSize: this.ctx.maxMessageBytes,
        maxLineLength: this.ctx.maxMessageBytes * 2,
        measure: (text) => Buffer.byteLength(text),
        onEvent: (event) => {
          const meta = event.type === 'message' ? {} : { event: event.type };
          this.deliver(new UpstreamMessage(event.data, event.size, new Date().toISOString(), meta));
        },
        onRetry: (ms) => {
          this.#retryFloor = Math.min(BACKOFF_CAP_MS, Math.max(1000, ms));
        },
        onOversized: (bytes) =>
          this.problem(
            'MESSAGE_TOO_LARGE',
            `Upstream message of ${bytes} bytes exceeds the limit of ${this.ctx.maxMessageBytes} bytes`,
          ),
      });
      response.on('data', (chunk: Buffer) => {
        armIdle();
        parser.push(decoder.write(chunk));
        if (parser.lastEventId !== null) this.#lastEventId = parser.lastEventId;
      });
      response.on('end', () => this.#lost(request, 'Upstream closed the stream'));
      response.on('error', () => this.#lost(request, 'Upstream connection failed'));
    });
    request.end();
  }

  #lost(request: ClientRequest, message: string): void {
    if (this.#request !== request || this.closed) return;
    this.retry(message, this.#retryFloor);
  }

  protected teardown(): void {
    clearTimeout(this.#idle);
    const request = this.#request;
    this.#request = undefined;
    request?.destroy();
  }
}
