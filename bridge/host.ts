// Client for the task host's local REST API (spec §1, §5.2). Built on node:http rather than fetch
// so that nothing is added behind our back (no Origin, no redirects followed, no retries) and one
// timer can cover connect, headers and the whole body.
import type http from 'node:http';
import type { BridgeEnv, HostSettings } from './config.ts';
import { BridgeError } from './errors.ts';
import { isObject } from './json.ts';
import { scanListEnvelope } from './list-body.ts';
import { type ResolvedToken, resolveToken } from './token.ts';
import { VERSION } from './version.ts';

export type HostMethod = 'GET' | 'POST' | 'PATCH';

export interface HostRequest {
  method: HostMethod;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

export interface HostSuccess {
  status: number;
  /**
   * `undefined` when the host answered success without data (empty, non-JSON, null, no envelope);
   * a LazyList for `requestList` when the items need not all be parsed.
   */
  data: unknown;
}

// Not `import http from 'node:http'`: an ES import of node:http evaluates its lazy exports, which
// loads undici (about 20 ms of start-up for every CLI run). https (and tls) only when asked for.
const httpModule = (): typeof http => process.getBuiltinModule('node:http');
const httpsModule = (): typeof import('node:https') => process.getBuiltinModule('node:https');

export interface HostClientOptions {
  agent?: http.Agent;
  platform?: NodeJS.Platform;
}

type Body = { kind: 'empty' } | { kind: 'nonJson' } | { kind: 'json'; value: unknown };

function parseBody(raw: Buffer): Body {
  const text = raw.toString('utf8');
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch {
    return { kind: 'nonJson' };
  }
}

export class HostClient {
  readonly settings: HostSettings;
  readonly env: BridgeEnv;
  /** Requests attempted so far: the CLI's exit code tells "failed before any request" apart. */
  requests = 0;
  readonly #agent: http.Agent | undefined;
  readonly #platform: NodeJS.Platform;

  constructor(settings: HostSettings, env: BridgeEnv, options: HostClientOptions = {}) {
    this.settings = settings;
    this.env = env;
    this.#agent = options.agent;
    this.#platform = options.platform ?? process.platform;
  }

  token(): ResolvedToken {
    return resolveToken(this.settings.envToken, this.env, this.#platform);
  }

  unavailable(): BridgeError {
    return new BridgeError(
      'APP_UNAVAILABLE',
      `Cannot connect to the task host at ${this.settings.url}. Is Super Productivity running with its local REST API enabled?`,
    );
  }

  async request(request: HostRequest): Promise<HostSuccess> {
    const token = this.token();
    const { status, raw } = await this.#exchange(request, token);
    return classify(status, parseBody(raw), token);
  }

  /**
   * As `request`, for routes answering a list that the bridge pages itself: a well-formed success
   * comes back as a LazyList whose items are parsed only when sliced; any other answer is
   * classified exactly as `request` does.
   */
  async requestList(request: HostRequest): Promise<HostSuccess> {
    const token = this.token();
    const { status, raw } = await this.#exchange(request, token);
    if (status >= 200 && status < 300) {
      const list = scanListEnvelope(raw);
      if (list) return { status, data: list };
    }
    return classify(status, parseBody(raw), token);
  }

  #exchange(request: HostRequest, token: ResolvedToken): Promise<{ status: number; raw: Buffer }> {
    this.requests++;
    const { url, timeoutMs } = this.settings;
    let target = `${url}${request.path}`;
    const query = Object.entries(request.query ?? {});
    if (query.length > 0)
      target += `?${query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': `towpath-bridge/${VERSION}`,
    };
    let payload: Buffer | undefined;
    if (request.body !== undefined) {
      payload = Buffer.from(JSON.stringify(request.body), 'utf8');
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    if (token.token) headers.Authorization = `Bearer ${token.token}`;
    const transport = target.startsWith('https:') ? httpsModule() : httpModule();

    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: BridgeError | undefined, value?: { status: number; raw: Buffer }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else if (value) resolve(value);
      };
      const req = transport.request(target, { method: request.method, headers, agent: this.#agent });
      const timer = setTimeout(() => {
        const note = request.method === 'GET' ? '' : '; the change may or may not have been applied';
        finish(new BridgeError('TIMEOUT', `The task host did not answer within ${timeoutMs} ms${note}`));
        req.destroy();
      }, timeoutMs);
      req.on('error', () => finish(this.unavailable()));
      req.on('response', (res) => {
        const body = new BodyCollector(Number(res.headers['content-length']));
        res.on('data', (chunk: Buffer) => body.add(chunk));
        res.on('error', () => finish(this.unavailable()));
        res.on('aborted', () => finish(this.unavailable()));
        res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, raw: body.bytes() }));
      });
      req.end(payload);
    });
  }
}

/** Bodies up to this size announced by Content-Length are collected into one buffer as they come. */
const PREALLOCATE_LIMIT = 256 * 1024 * 1024;

/**
 * The bytes of a response body. With a Content-Length, each chunk is copied into one buffer of
 * that size while the rest is still on the way, instead of all at once at the end: a list of
 * 100,000 tasks is 22 MB, and copying it after the last byte arrived kept the CLI waiting.
 */
class BodyCollector {
  readonly #whole: Buffer | undefined;
  #filled = 0;
  readonly #chunks: Buffer[] = [];

  constructor(announced: number) {
    this.#whole =
      Number.isSafeInteger(announced) && announced > 0 && announced <= PREALLOCATE_LIMIT
        ? Buffer.allocUnsafe(announced)
        : undefined;
  }

  add(chunk: Buffer): void {
    // Past the announced size (which Node's parser does not let happen), keep the order all the same.
    if (this.#whole && this.#chunks.length === 0 && this.#filled + chunk.length <= this.#whole.length) {
      chunk.copy(this.#whole, this.#filled);
      this.#filled += chunk.length;
    } else this.#chunks.push(chunk);
  }

  bytes(): Buffer {
    if (!this.#whole) return Buffer.concat(this.#chunks);
    const received = this.#whole.subarray(0, this.#filled);
    return this.#chunks.length === 0 ? received : Buffer.concat([received, ...this.#chunks]);
  }
}

function classify(status: number, body: Body, token: ResolvedToken): HostSuccess {
  const envelope = body.kind === 'json' && isObject(body.value) ? body.value : undefined;
  const error = envelope && isObject(envelope.error) ? envelope.error : undefined;

  if (status === 401) {
    const hostMessage = typeof error?.message === 'string' ? error.message : undefined;
    const message =
      token.source === 'none'
        ? 'The task host requires an access token and none was found (set TASK_HOST_TOKEN or enable the token in Super Productivity)'
        : `The task host rejected the access token from ${token.source}`;
    const details: Record<string, unknown> = { status, tokenSource: token.source };
    if (hostMessage !== undefined) details.hostMessage = hostMessage;
    throw new BridgeError('UNAUTHORIZED', message, details);
  }

  // §5.2 steps 4 and 5: the envelope decides, not the status. A 2xx may still carry a failure
  // (answered as under 5b), and ok:true under any other status is a contradiction.
  if (status >= 200 && status < 300) {
    if (envelope?.ok === true) return { status, data: envelope.data ?? undefined };
    if (envelope?.ok !== false) return { status, data: undefined };
  } else if (envelope?.ok === true)
    throw new BridgeError('APP_ERROR', `Host answered HTTP ${status} with ok:true`, { status });

  if (envelope?.ok === false && error && typeof error.code === 'string' && error.code !== '') {
    const details: Record<string, unknown> = { status };
    if (error.details !== undefined) details.hostDetails = error.details;
    const message = typeof error.message === 'string' ? error.message : '';
    throw new BridgeError(error.code, message, details);
  }
  throw new BridgeError('APP_ERROR', `Host answered HTTP ${status} without an error envelope`, { status });
}
