import { networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';

export const LINKS_ROUTE = '/api/links';

export interface LinksOptions {
  /** `PUBLIC_URL`, when configured. */
  publicUrl: string | null;
  /** The host the LAN door listens on (`HOST`). */
  host: string;
  /** The machine's addresses; the operating system's unless a test gives its own. */
  interfaces?: () => ReturnType<typeof networkInterfaces>;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK = /^(?:127\.|localhost$|::1$|\[::1\]$)/i;

/**
 * The origin the links the screens hand out (share, invite, reset) start with: the configured
 * public URL, else the LAN door's own address as a colleague reaches it — the first non-loopback
 * IPv4 address for a wildcard listener. A page opened on the workstation is on 127.0.0.1, which no
 * colleague can open. Null when the door is reachable only on loopback: the page's origin is then
 * as good as any.
 */
export function linkBase(options: LinksOptions, port: number): string | null {
  if (options.publicUrl) return options.publicUrl;
  const host = options.host;
  if (LOOPBACK.test(host)) return null;
  if (!WILDCARDS.has(host))
    return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  for (const entries of Object.values((options.interfaces ?? networkInterfaces)()))
    for (const entry of entries ?? [])
      if (entry.family === 'IPv4' && !entry.internal) return `http://${entry.address}:${port}`;
  return null;
}

/** `GET /api/links`: `{ base }`, read by the renderer before it shows a link. */
export async function linksRoute(app: FastifyInstance, options: LinksOptions) {
  app.get(LINKS_ROUTE, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return { base: linkBase(options, request.socket.localPort ?? 0) };
  });
}
