// /api/machine/* on the LAN door: the renderer's and LAN viewers' one address for the machine,
// forwarded byte for byte to the machine door (bodies and server-sent events stream through; a job
// body is never parsed here). The route table is the contract's MACHINE_ROUTES. Who may do what is
// decided here, before anything is read or forwarded:
// - control (everything but status and events): clients on the workstation, or anyone with
//   MACHINE_REMOTE_CONTROL=1; others get 403;
// - status and events: also signed-in LAN users (a dashboard API bearer JWT); others get 401.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  LAN_READABLE_ROUTES,
  MACHINE_DOOR_INFO_ROUTE,
  MACHINE_ROUTES,
  type MachineDoorInfo,
  type MachineRoute,
  methodOf,
} from '../../engine/machine/contract.ts';
import { resolvePrincipal, type ServiceAccountAuthenticator } from '../auth/principal.ts';
import type { SessionTokens } from '../auth/sessions.ts';
import type { Store } from '../db/store.ts';
import { type ClientAddresses, loopbackOnly, SOCKET_ADDRESSES } from '../http/client-address.ts';
import { MachineUnavailableError } from './link.ts';

export interface MachineForwardOptions {
  /**
   * The machine door's URL now (it changes if the machine process is restarted on port 0); throws
   * MachineUnavailableError while no machine process is attached.
   */
  machineUrl: () => string;
  /** True when MACHINE_REMOTE_CONTROL lets LAN clients in. */
  allowRemote: () => boolean;
  /** True when the Authorization header is a signed-in user's. */
  isSignedIn: (authorization: string | undefined) => Promise<boolean>;
  /** How clients are told apart (trusted proxies, §5.6); socket addresses when absent. */
  clientAddresses?: ClientAddresses;
}

/** Request headers passed on; the rest (cookies, credentials, Origin, Host) stay at this door. */
const PASSED_REQUEST = ['content-type', 'content-length', 'transfer-encoding', 'accept', 'last-event-id'];
/** Response headers not passed back (hop-by-hop, or the machine door's own CORS answer). */
const DROPPED_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'access-control-allow-origin',
  'vary',
]);

/** `isSignedIn` for the dashboard API's users: a valid session JWT of an active user (not a service account). */
export function signedInUser(deps: { sessions: SessionTokens; store: Store }) {
  const serviceAccounts: ServiceAccountAuthenticator = async () => null;
  return async (authorization: string | undefined) =>
    (await resolvePrincipal(authorization, { ...deps, serviceAccounts })).principal.kind === 'user';
}

export async function machineForwardRoutes(app: FastifyInstance, options: MachineForwardOptions) {
  // Bodies are not read here: the request stream goes on as it arrives.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const addresses = options.clientAddresses ?? SOCKET_ADDRESSES;
  const controlOnly = loopbackOnly(addresses, options.allowRemote);
  // Control routes answer only requests addressed to a loopback name (DNS rebinding: the door's
  // guards answer 421); with MACHINE_REMOTE_CONTROL=1 also to an IP address.
  const localHost = () => !options.allowRemote();
  const readable = async (request: FastifyRequest, reply: FastifyReply) => {
    if (options.allowRemote() || addresses.isLocal(request)) return;
    if (await options.isSignedIn(request.headers.authorization)) return;
    await reply.code(401).send({ detail: 'Sign in to see the machine.' });
  };

  for (const [name, path] of Object.entries(MACHINE_ROUTES) as [MachineRoute, string][]) {
    app.route({
      method: methodOf(name),
      url: path,
      onRequest: LAN_READABLE_ROUTES.includes(name) ? readable : controlOnly,
      ...(LAN_READABLE_ROUTES.includes(name) ? {} : { config: { localHost } }),
      handler: (request, reply) => {
        const base = attachedDoor(options, reply);
        if (base !== undefined) forward(request, reply, base);
      },
    });
  }

  // Where the renderer on this workstation sends its e-stop, straight to the machine process, and
  // whether the page may offer control at all (the same rule as the control routes' guard).
  app.get(
    MACHINE_DOOR_INFO_ROUTE,
    { config: { localHost } },
    async (request, reply): Promise<MachineDoorInfo> => {
      reply.header('cache-control', 'no-store');
      const local = addresses.isLocal(request);
      const url = attachedDoor(options, reply);
      if (url === undefined) return reply;
      return { url: local ? url : null, control: local || options.allowRemote() };
    },
  );
}

/**
 * The attached machine door's URL; undefined after answering 503 when there is none: while one
 * starts (or restarts after a crash) with Retry-After, so panels and scripts try again; when none
 * could start, with the reason.
 */
function attachedDoor(options: MachineForwardOptions, reply: FastifyReply): string | undefined {
  try {
    return options.machineUrl();
  } catch (error) {
    if (!(error instanceof MachineUnavailableError)) throw error;
    if (error.retry) reply.header('retry-after', '1');
    void reply.code(503).header('cache-control', 'no-store').send({ detail: error.message });
    return undefined;
  }
}

function forward(request: FastifyRequest, reply: FastifyReply, base: string) {
  const headers: IncomingHttpHeaders = {};
  for (const name of PASSED_REQUEST)
    if (request.headers[name] !== undefined) headers[name] = request.headers[name];
  // A client that will not wait (`Connection: close`) gets an answer that ends, events included.
  if (/(^|,)\s*close\s*(,|$)/i.test(request.headers.connection ?? '')) headers.connection = 'close';
  reply.hijack();
  const out = reply.raw;
  const upstream = httpRequest(`${base}${request.url}`, { method: request.method, headers }, (response) => {
    const passed: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !DROPPED_RESPONSE.has(name)) passed[name] = value;
    }
    out.writeHead(response.statusCode ?? 502, passed);
    if (String(response.headers['content-type']).startsWith('text/event-stream')) out.flushHeaders();
    response.pipe(out);
    response.on('error', () => out.destroy());
  });
  const unavailable = (error: Error) => {
    if (out.headersSent) {
      out.destroy();
      return;
    }
    const reason = (error as NodeJS.ErrnoException).code ?? error.message;
    // Most often a machine process that just ended: the link is starting a new one.
    out.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' });
    out.end(JSON.stringify({ detail: `The machine process is not answering (${reason})` }));
  };
  upstream.on('error', unavailable);
  // A client that leaves (an events viewer closing its page) ends the upstream request too.
  out.on('close', () => {
    if (!out.writableFinished) upstream.destroy();
  });
  const body = request.body as NodeJS.ReadableStream | undefined;
  if (body && typeof body.pipe === 'function') body.pipe(upstream);
  else upstream.end();
}
