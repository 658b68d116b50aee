// The header checks every door runs before it reads a body or does any work: the Host a request
// was addressed to (DNS rebinding), the Origin of a state change (cross-site writes from a page open
// in a browser on the workstation or the LAN) and the content type of a state change (a browser
// sends form and text/plain posts cross-site without asking first, but never application/json).
// One fastify onRequest hook per door; routes say through their config what they need.
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { misdirectedPage, wantsPage } from './misdirected-page.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Marks a route that only clients on the workstation may use: it answers only requests
     * addressed to a loopback name (or one of `ALLOWED_HOSTS`). A function is asked per request;
     * when it answers false (for example `MACHINE_REMOTE_CONTROL=1`) the route also answers
     * requests addressed to an IP literal, which no rebound DNS name can produce.
     */
    localHost?: boolean | (() => boolean);
  }
}

export interface GuardOptions {
  /** `loopback`: every route of the door is local (winding and machine doors); `any`: only marked ones. */
  hosts: 'loopback' | 'any';
  /** `ALLOWED_HOSTS`: further names (lowercase, no port) a local route answers to. */
  allowedHosts: readonly string[];
  /** `CORS_ORIGINS`: origins besides the door's own that may change state. */
  corsOrigins: readonly string[];
  /**
   * Origins a door accepts besides those (e.g. another door's page that calls it); a function is
   * asked per request, for a list that changes (the machine door's attached cores).
   */
  extraOrigins?: readonly string[] | (() => readonly string[]);
  /**
   * False for a door whose routes answer a wrong content type themselves (the winding door's
   * spec'd 400 "Invalid request body: Content-Type must be application/json"). Default true.
   */
  requireJson?: boolean;
}

export const MISDIRECTED = 'Misdirected request';
export const CROSS_ORIGIN = 'Cross-origin request refused';
export const JSON_ONLY = 'Content-Type must be application/json';

/** Methods that change nothing; everything else is a state change. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The host name of a `Host` header, lowercased, without its port; null when malformed. */
export function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const host = header.trim().toLowerCase();
  const bracketed = /^(\[[0-9a-f:.]+\])(?::\d{1,5})?$/.exec(host);
  if (bracketed) return bracketed[1] ?? null;
  const plain = /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(host);
  return plain ? (plain[1] ?? null) : null;
}

/** True for names a rebound DNS entry cannot be: loopback names, `allowedHosts`, and optionally IP literals. */
export function isHostAllowed(
  header: string | undefined,
  allowedHosts: readonly string[],
  ipLiterals = false,
): boolean {
  const name = hostName(header);
  if (name === null) return false;
  if (LOOPBACK_NAMES.has(name) || allowedHosts.includes(name)) return true;
  if (name.startsWith('[')) return ipLiterals && isIP(name.slice(1, -1)) === 6;
  return ipLiterals && isIP(name) === 4;
}

function isJsonMediaType(header: string | undefined): boolean {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** The route's Host rule: undefined = any Host, else whether IP literals count too. */
function hostRule(
  request: FastifyRequest,
  hosts: GuardOptions['hosts'],
): { ipLiterals: boolean } | undefined {
  if (hosts === 'loopback') return { ipLiterals: false };
  const local = request.routeOptions.config?.localHost;
  if (local === undefined || local === false) return undefined;
  return { ipLiterals: typeof local === 'function' && !local() };
}

/**
 * Registers the checks on a door (call it before any route or plugin is registered, so they
 * apply everywhere): 421 for a local route addressed to another name, then for a state change
 * 403 for a foreign `Origin` and 415 for a body that is not JSON. All run on `onRequest`, from
 * headers alone, so nothing is parsed or done for a refused request.
 */
export function requestGuards(app: FastifyInstance, options: GuardOptions): void {
  const extra = options.extraOrigins;
  const fixed = new Set(
    [...options.corsOrigins, ...(typeof extra === 'function' ? [] : (extra ?? []))].map((o) =>
      o.toLowerCase(),
    ),
  );
  const isListed = (origin: string) =>
    fixed.has(origin) ||
    (typeof extra === 'function' && extra().some((allowed) => allowed.toLowerCase() === origin));
  const requireJson = options.requireJson ?? true;
  const refuse = (reply: FastifyReply, status: number, detail: string) => {
    // The connection may carry more requests; a refused body is not worth reading.
    reply.header('connection', 'close');
    return reply.code(status).send({ detail });
  };

  app.addHook('onRequest', async (request, reply) => {
    const rule = hostRule(request, options.hosts);
    if (rule && !isHostAllowed(request.headers.host, options.allowedHosts, rule.ipLiterals)) {
      // A person who opened the page gets it explained; scripts and API clients the JSON.
      if (wantsPage(request))
        return reply
          .code(421)
          .header('connection', 'close')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
          .type('text/html; charset=utf-8')
          .send(misdirectedPage(request));
      return refuse(reply, 421, MISDIRECTED);
    }
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    if (
      origin !== undefined &&
      !isOwnOrigin(origin, request.headers.host) &&
      !isListed(origin.toLowerCase())
    ) {
      return refuse(reply, 403, CROSS_ORIGIN);
    }
    if (requireJson && !isJsonMediaType(request.headers['content-type'])) {
      return refuse(reply, 415, JSON_ONLY);
    }
  });
}

/** The door's own origin: the page that was served from the very `Host` the request names. */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  const lower = origin.toLowerCase();
  const name = host.toLowerCase();
  return lower === `http://${name}` || lower === `https://${name}`;
}

/**
 * Marks every route registered from here on in this (encapsulated) plugin as local: see
 * `localHost`. `allowRemote` is asked per request (`MACHINE_REMOTE_CONTROL`).
 */
export function localRoutes(app: FastifyInstance, allowRemote?: () => boolean): void {
  const local = allowRemote ? () => !allowRemote() : true;
  app.addHook('onRoute', (route: RouteOptions) => {
    route.config = { ...route.config, localHost: local };
  });
}
