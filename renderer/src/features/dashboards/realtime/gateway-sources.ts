// `machine`, `sse`, `websocket` and `mqtt` datasources (document §7.1–§7.2) streamed through the
// realtime gateway. Every datasource of one view shares one socket: the hub hands each source the
// same context object, so the context is the key of the view's client, which closes once its last
// stream stops. The gateway client renews credentials, reconnects and retries closed-but-retriable
// streams itself; this adapter turns its callbacks into the hub's statuses and handles what is left
// to the page: minting with retries, and resubscribing once after a revocation.

import { hasWildcard, TopicValues } from '#engine/dashboard/topic-values.ts';
import {
  GatewayClient,
  type GatewayCredential,
  type GatewayMessage,
  type StreamHandlers,
} from '../../../lib/gateway-client.ts';
import type { Datasource } from '../document.ts';
import { MintError } from './http-source.ts';
import type { SourceContext, SourceFactory, SourceUpdate } from './sources.ts';

/** The part of `GatewayClient` a view uses. */
export interface GatewayLink {
  subscribe(handlers: StreamHandlers): () => void;
  close(): void;
}

export interface GatewaySourceOptions {
  connect?: () => GatewayLink;
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

export const SOCKET_LOST = 'Connection to Towpath lost; reconnecting';
const MINT_RETRY_CAP_MS = 30_000;
/** Document §7.2: a second revocation of a datasource within 10 s leaves it in `error`. */
const REVOKED_AGAIN_MS = 10_000;
/**
 * A dashboard opened again in the same page reuses the session tokens it minted last time while
 * they have at least this long to live: a shop-floor screen switched between dashboards, or a
 * 12-datasource board reopened a few times a minute, would otherwise spend the per-user mint limit
 * (API §11) on tokens it already holds.
 */
const REUSE_MARGIN_MS = 60_000;
/** Tokens kept for reuse in one page (the oldest goes first). */
const REUSED_TOKENS = 256;

interface View {
  link: GatewayLink;
  users: number;
}

/** Thrown to the gateway client when no credential will come; its message is shown. */
class NoCredential extends Error {}

function machineAuth(context: SourceContext): GatewayCredential {
  const bearer = context.bearer();
  return {
    auth: {
      ...(bearer ? { bearer } : {}),
      ...(context.shareToken ? { shareToken: context.shareToken } : {}),
    },
  };
}

function reconnectingMessage(message: GatewayMessage | null): string {
  const text = typeof message?.message === 'string' ? message.message : 'Upstream connection lost';
  const retryIn = message?.retryInMs;
  return typeof retryIn === 'number'
    ? `${text}; retrying in ${Math.max(1, Math.round(retryIn / 1000))} s`
    : text;
}

export function createGatewaySources(options: GatewaySourceOptions = {}): SourceFactory {
  const connect = options.connect ?? (() => new GatewayClient());
  const later = options.setTimeout ?? ((callback, ms) => globalThis.setTimeout(callback, ms));
  const cancel = options.clearTimeout ?? ((handle) => globalThis.clearTimeout(handle as number));
  const views = new WeakMap<SourceContext, View>();
  // Keyed by everything a token is bound to: the dashboard, how the page reached it (share token or
  // signed-in session) and the datasource exactly as defined (a changed one needs a new token).
  const reusable = new Map<string, { token: string; expiresAt: number }>();
  const keep = (key: string, token: string, expiresAt: string) => {
    reusable.delete(key);
    reusable.set(key, { token, expiresAt: Date.parse(expiresAt) });
    if (reusable.size > REUSED_TOKENS) reusable.delete(reusable.keys().next().value as string);
  };

  const join = (context: SourceContext): View => {
    let view = views.get(context);
    if (!view) {
      view = { link: connect(), users: 0 };
      views.set(context, view);
    }
    view.users += 1;
    return view;
  };
  // Deferred a microtask: the hub restarts an edited datasource by stopping it and starting it again
  // in one go, which should not cost the view its socket.
  const leave = (context: SourceContext, view: View) => {
    view.users -= 1;
    queueMicrotask(() => {
      if (view.users > 0 || views.get(context) !== view) return;
      views.delete(context);
      view.link.close();
    });
  };

  return (datasource: Datasource, context: SourceContext, emit: (update: SourceUpdate) => void) => {
    const view = join(context);
    let stopped = false;
    let unsubscribe: (() => void) | null = null;
    let mintFailures = 0;
    let waiting: { handle: unknown; resolve: () => void } | null = null;
    let refusal: string | null = null;
    let revokedAt: number | null = null;
    // Only a stream's first credential may be a kept one: a renewal, or a resubscription after a
    // revocation or refusal, always gets a fresh token.
    let mayReuse = true;

    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        waiting = { handle: later(() => resolve(), ms), resolve };
      });

    // Session tokens are minted until one comes: TOO_MANY_REQUESTS waits as told, other failures back
    // off 1, 2, 4 … 30 s; a FORBIDDEN mint ends it (no retry until the document changes or a reload).
    const credential = async (): Promise<GatewayCredential> => {
      if (datasource.type === 'machine') return machineAuth(context);
      const key = [
        context.dashboardId,
        context.shareToken,
        context.bearer(),
        JSON.stringify(datasource),
      ].join('\n');
      const kept = mayReuse ? reusable.get(key) : undefined;
      mayReuse = false;
      if (kept && kept.expiresAt - context.now() >= REUSE_MARGIN_MS) return { sessionToken: kept.token };
      for (;;) {
        try {
          const minted = await context.mint(datasource.id);
          mintFailures = 0;
          keep(key, minted.token, minted.expiresAt);
          return { sessionToken: minted.token };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          if (stopped) throw new NoCredential(message);
          if (error instanceof MintError && error.code === 'FORBIDDEN') {
            refusal = message;
            throw new NoCredential(message);
          }
          emit({ status: 'error', message });
          if (error instanceof MintError && error.code === 'TOO_MANY_REQUESTS')
            await pause((error.retryAfterSeconds ?? 1) * 1000);
          else {
            mintFailures += 1;
            await pause(Math.min(MINT_RETRY_CAP_MS, 1000 * 2 ** (mintFailures - 1)));
          }
          waiting = null;
          if (stopped) throw new NoCredential('Stopped');
        }
      }
    };

    // On a wildcard filter the value is every matched topic's latest payload (document §3.2).
    const topic = datasource.type === 'mqtt' ? datasource.settings?.topic : undefined;
    const topics = typeof topic === 'string' && hasWildcard(topic) ? new TopicValues() : null;

    const open = () => {
      refusal = null;
      emit({ status: 'connecting' });
      unsubscribe = view.link.subscribe({
        dashboardId: context.dashboardId,
        datasourceId: datasource.id,
        credential,
        onData: (value, message) => {
          if (stopped) return;
          if (topics && typeof message.topic === 'string') {
            topics.apply(message.topic, value, message.removed === true);
            emit({ status: 'connected', value: topics.value() });
          } else emit({ status: 'connected', value });
        },
        onStatus: (status, message) => {
          if (stopped) return;
          if (status === 'connecting') emit({ status: 'connecting' });
          else if (status === 'connected') emit({ status: 'connected' });
          else if (status === 'lost') emit({ status: 'error', message: SOCKET_LOST });
          // `reconnecting` upstream, or `error`: closed as rate_limited, unavailable or limit_reached,
          // which the client retries itself.
          else emit({ status: 'error', message: reconnectingMessage(message) });
        },
        onError: (message) => {
          // Only a credential that will not come changes the status; the gateway's other errors
          // (a dropped oversized or unparsable message, a failed renewal) leave the stream running.
          if (!stopped && message.code === 'CREDENTIAL_FAILED' && refusal !== null)
            emit({ status: 'error', message: refusal });
        },
        onClosed: (message) => {
          unsubscribe = null;
          if (stopped) return;
          const text = typeof message.message === 'string' ? message.message : 'Stream closed';
          if (message.reason !== 'revoked') {
            emit({ status: 'error', message: text });
            return;
          }
          emit({ status: 'error', message: text, revoked: true });
          // The page re-reads its dashboard meanwhile; a stream it may still read comes back on a new
          // token, once: revoked again within 10 s, it stays in error.
          const now = context.now();
          if (revokedAt !== null && now - revokedAt < REVOKED_AGAIN_MS) return;
          revokedAt = now;
          open();
        },
      });
    };

    open();
    return () => {
      stopped = true;
      if (waiting) {
        cancel(waiting.handle);
        waiting.resolve();
      }
      unsubscribe?.();
      unsubscribe = null;
      leave(context, view);
    };
  };
}
