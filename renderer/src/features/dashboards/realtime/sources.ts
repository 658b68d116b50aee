// Where datasource values come from. `static` and `clock` run here in the page (§3.2); `http` polls
// the gateway's fetch relay (http-source.ts); `machine`, `sse`, `websocket` and `mqtt` stream through
// the realtime gateway's socket (gateway-sources.ts, plugged in with `setLiveSourceFactory` by the
// pages that run dashboards) — where nothing is plugged in, those datasources say so in `error`.
import type { Datasource } from '../document.ts';
import { isObject } from '../document.ts';
import { startHttpSource } from './http-source.ts';

export type DatasourceStatus = 'connecting' | 'connected' | 'updating' | 'stale' | 'error';

/** One report from a running datasource: a new value (when `value` is present) and/or a status. */
export interface SourceUpdate {
  status?: DatasourceStatus;
  value?: unknown;
  /** Shown with `error` (and with `connecting` while retrying). */
  message?: string;
  /** The gateway closed the stream as revoked (§7.2): the page re-reads its dashboard. */
  revoked?: boolean;
}

/** What a live source needs from the page it runs in. */
export interface SourceContext {
  dashboardId: string;
  /** The share token the page was opened with (link and public viewers), else null. */
  shareToken: string | null;
  /** A datasource session token (API §11) for http/sse/websocket/mqtt. */
  mint(datasourceId: string): Promise<{ token: string; expiresAt: string }>;
  /** The signed-in user's JWT for `machine` subscriptions, or null. */
  bearer(): string | null;
  now(): number;
}

/** Starts one datasource; the returned function stops it. */
export type SourceFactory = (
  datasource: Datasource,
  context: SourceContext,
  emit: (update: SourceUpdate) => void,
) => () => void;

const STREAMED_TYPES = new Set(['machine', 'sse', 'websocket', 'mqtt']);

const waitingForGateway: SourceFactory = (datasource, _context, emit) => {
  emit({
    status: 'error',
    message: `Live ${datasource.type} data needs the realtime gateway client, which is not connected in this build`,
  });
  return () => {};
};

let liveFactory: SourceFactory = waitingForGateway;

/** The realtime gateway client registers itself here; returns the previous factory (tests restore it). */
export function setLiveSourceFactory(factory: SourceFactory): SourceFactory {
  const previous = liveFactory;
  liveFactory = factory;
  return previous;
}

function settings(datasource: Datasource): Record<string, unknown> {
  return isObject(datasource.settings) ? datasource.settings : {};
}

function seconds(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? value
    : fallback;
}

const staticSource: SourceFactory = (datasource, _context, emit) => {
  const value = settings(datasource).value ?? null;
  emit({ status: 'connected', value });
  const refresh = seconds(settings(datasource).refresh, 0, 0, 86400);
  if (refresh === 0) return () => {};
  const timer = setInterval(() => emit({ status: 'connected', value }), refresh * 1000);
  return () => clearInterval(timer);
};

export function clockValue(epochMs: number) {
  const date = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  return {
    iso: date.toISOString(),
    epochMs,
    localDate: `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`,
    localTime: `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`,
  };
}

const clockSource: SourceFactory = (datasource, context, emit) => {
  const tick = () => emit({ status: 'connected', value: clockValue(context.now()) });
  tick();
  const timer = setInterval(tick, seconds(settings(datasource).refresh, 1, 1, 3600) * 1000);
  return () => clearInterval(timer);
};

export function startSource(
  datasource: Datasource,
  context: SourceContext,
  emit: (update: SourceUpdate) => void,
) {
  if (datasource.type === 'static') return staticSource(datasource, context, emit);
  if (datasource.type === 'clock') return clockSource(datasource, context, emit);
  if (datasource.type === 'http') return startHttpSource(datasource, context, emit);
  if (STREAMED_TYPES.has(datasource.type)) return liveFactory(datasource, context, emit);
  emit({ status: 'error', message: `Unknown datasource type ${datasource.type}` });
  return () => {};
}

/** §3.1 defaults: 3 × refresh for http, clock and refreshing static; 45 s for machine; else never. */
export function staleAfterSeconds(datasource: Datasource): number {
  const s = settings(datasource);
  if (typeof s.staleAfterSeconds === 'number') return s.staleAfterSeconds;
  if (datasource.type === 'machine') return 45;
  if (datasource.type === 'http') return 3 * seconds(s.refresh, 5, 1, 86400);
  if (datasource.type === 'clock') return 3 * seconds(s.refresh, 1, 1, 3600);
  if (datasource.type === 'static') return 3 * seconds(s.refresh, 0, 0, 86400);
  return 0;
}
