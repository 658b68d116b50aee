// `http` datasources (document §7.1–§7.2): a session token minted for the datasource, then the
// gateway's fetch relay polled `refresh` s after each answer, one request in flight. A relay 401 gets
// one immediate re-mint; 429 waits as told; failures back off 1, 2, 4 … s but never past the normal
// schedule; a refused mint stays an error until the document changes or the page reloads.
import type { Datasource } from '../document.ts';
import { isObject } from '../document.ts';
import type { SourceContext, SourceUpdate } from './sources.ts';

export const RELAY_PATH = '/gateway/http/fetch';

/** A refused mint, with the GraphQL code and, for TOO_MANY_REQUESTS, how long to wait. */
export class MintError extends Error {
  readonly code: string;
  readonly retryAfterSeconds: number | null;
  constructor(message: string, code: string, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = 'MintError';
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface HttpSourceIo {
  fetch(
    url: string,
    init: { method: 'POST'; headers: Record<string, string>; body: string },
  ): Promise<{
    status: number;
    json(): Promise<unknown>;
  }>;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const browserIo: HttpSourceIo = {
  fetch: (url, init) => globalThis.fetch(url, { ...init, cache: 'no-store' }),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
};

function refreshSeconds(datasource: Datasource): number {
  const refresh = isObject(datasource.settings) ? datasource.settings.refresh : undefined;
  return typeof refresh === 'number' && Number.isInteger(refresh) && refresh >= 1 && refresh <= 86400
    ? refresh
    : 5;
}

export function startHttpSource(
  datasource: Datasource,
  context: SourceContext,
  emit: (update: SourceUpdate) => void,
  io: HttpSourceIo = browserIo,
): () => void {
  const refreshMs = refreshSeconds(datasource) * 1000;
  let stopped = false;
  let timer: unknown = null;
  let token: { value: string; renewAt: number } | null = null;
  let hasValue = false;
  let failures = 0;

  const later = (ms: number, run: () => void) => {
    io.clearTimeout(timer);
    timer = io.setTimeout(() => {
      if (!stopped) void run();
    }, ms);
  };
  const fail = (message: string) => {
    failures += 1;
    emit({ status: 'error', message });
    later(Math.min(refreshMs, 1000 * 2 ** (failures - 1)), poll);
  };

  async function mint(): Promise<string | null> {
    try {
      const minted = await context.mint(datasource.id);
      const now = context.now();
      const lifetime = Math.max(0, Date.parse(minted.expiresAt) - now);
      token = { value: minted.token, renewAt: now + lifetime - Math.min(60_000, lifetime / 2) };
      return minted.token;
    } catch (error) {
      if (stopped) return null;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof MintError && error.code === 'TOO_MANY_REQUESTS') {
        emit({ status: 'error', message });
        later((error.retryAfterSeconds ?? 1) * 1000, poll);
      } else if (error instanceof MintError && error.code === 'FORBIDDEN') {
        // Denied for good: no retry until the document changes (a new source) or a reload.
        emit({ status: 'error', message });
      } else fail(message);
      return null;
    }
  }

  async function poll(retried = false): Promise<void> {
    emit({ status: hasValue ? 'updating' : 'connecting' });
    const sessionToken = token && context.now() < token.renewAt ? token.value : await mint();
    if (!sessionToken || stopped) return;
    let answer: { status: number; json(): Promise<unknown> };
    try {
      answer = await io.fetch(RELAY_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionToken, dashboardId: context.dashboardId, datasourceId: datasource.id }),
      });
    } catch {
      if (!stopped) fail('Connection to Towpath lost; reconnecting');
      return;
    }
    if (stopped) return;
    const body = (await answer.json().catch(() => null)) as Record<string, unknown> | null;
    const error = typeof body?.error === 'string' ? body.error : `Relay answered ${answer.status}`;
    if (answer.status === 200 && body && 'body' in body) {
      failures = 0;
      hasValue = true;
      emit({ status: 'connected', value: body.body });
      later(refreshMs, poll);
    } else if (answer.status === 401 && !retried) {
      token = null;
      await poll(true);
    } else if (answer.status === 429) {
      emit({ status: 'error', message: error });
      later(typeof body?.retryAfterMs === 'number' ? body.retryAfterMs : refreshMs, poll);
    } else if (answer.status === 403 && /revoked|stale/i.test(error)) {
      // The dashboard's access changed: the page re-reads it (document §7.2 `revoked`).
      emit({ status: 'error', message: error, revoked: true });
    } else fail(error);
  }

  void poll();
  return () => {
    stopped = true;
    io.clearTimeout(timer);
  };
}
