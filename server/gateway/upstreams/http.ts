// The fetch relay's one upstream request (gateway spec §2.2–§2.4): HTTP/1.1, one attempt, no
// redirects, no proxy, pinned to the egress-checked address, bounded in time and decoded bytes.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { VERSION } from '../../../bridge/version.ts';
import { parseCsv } from '../csv.ts';
import type { ResolvedAddress } from '../egress.ts';
import { intentHeaders, pinnedLookup, tlsFailureCode } from './connect.ts';

/** A relay answer other than 200; `extra` goes beside `error` in the body. */
export class FetchFailure extends Error {
  override name = 'FetchFailure';
  readonly status: number;
  readonly extra: Record<string, unknown>;
  constructor(status: number, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
  }
}

export interface FetchResult {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  bytes: number;
  durationMs: number;
}

const KEPT_HEADERS = [
  'content-type',
  'content-length',
  'etag',
  'last-modified',
  'date',
  'cache-control',
  'expires',
];
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function fetchUpstream(
  intent: Record<string, unknown>,
  address: ResolvedAddress,
  maxBytes: number,
): Promise<FetchResult> {
  const url = new URL(String(intent.url));
  const method = String(intent.method ?? 'GET').toUpperCase();
  const headers = intentHeaders(intent.headers);
  headers['accept-encoding'] = 'gzip, deflate, br';
  headers.accept ??= '*/*';
  headers['user-agent'] ??= `towpath-gateway/${VERSION}`;
  const body = WITH_BODY.has(method) && typeof intent.body === 'string' ? intent.body : null;
  if (body !== null) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const timeoutMs = Number(intent.timeoutMs) || 15_000;
  const started = performance.now();
  return new Promise<FetchResult>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method,
      headers,
      lookup: pinnedLookup(address),
      agent: false,
    });
    const timer = setTimeout(() => fail(new FetchFailure(504, 'Upstream request timed out')), timeoutMs);
    let settled = false;
    const fail = (failure: FetchFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(failure);
    };
    request.on('error', (error) => {
      const tls = tlsFailureCode(error);
      fail(
        new FetchFailure(502, tls ? `Upstream TLS handshake failed: ${tls}` : 'Upstream connection failed'),
      );
    });
    request.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.resume();
        fail(new FetchFailure(502, `Upstream responded with status ${status}`, { upstreamStatus: status }));
        return;
      }
      const encoding = String(response.headers['content-encoding'] ?? '')
        .trim()
        .toLowerCase();
      const decoder =
        encoding === 'gzip' || encoding === 'x-gzip'
          ? createGunzip()
          : encoding === 'deflate'
            ? createInflate()
            : encoding === 'br'
              ? createBrotliDecompress()
              : null;
      const stream = decoder ? response.pipe(decoder) : response;
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxBytes) {
          fail(new FetchFailure(502, `Upstream response exceeds ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', () => fail(new FetchFailure(502, 'Upstream connection failed')));
      response.on('aborted', () => fail(new FetchFailure(502, 'Upstream connection failed')));
      stream.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const kept: Record<string, string> = {};
        for (const name of KEPT_HEADERS) {
          const value = response.headers[name];
          if (value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : String(value);
        }
        // The TextDecoder turns bad bytes into U+FFFD, as §2.3 asks for `text`.
        const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks));
        let parsed: unknown = text;
        if (intent.parser === 'csv') parsed = parseCsv(text);
        else if (intent.parser !== 'text') {
          try {
            parsed = text.trim() === '' ? null : JSON.parse(text);
          } catch {
            reject(new FetchFailure(502, 'Upstream response is not valid JSON'));
            return;
          }
        }
        resolve({
          status,
          headers: kept,
          body: parsed,
          bytes,
          durationMs: Math.round(performance.now() - started),
        });
      });
    });
    request.end(body ?? undefined);
  });
}
