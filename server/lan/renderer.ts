import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../http/app.ts';
import { RENDERER_CSP } from './csp.ts';

/** Paths owned by APIs: an unknown one is a JSON 404, never the app page. */
const API_PREFIXES = ['/api/', '/graphql', '/internal/', '/healthz'];

function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', RENDERER_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
}

/**
 * Serves the built renderer at `/` with an SPA fallback: any other GET for a page (an address
 * such as `/winding` typed or reloaded in a browser) gets `index.html`, and the client routes it.
 */
export async function serveRenderer(app: FastifyInstance, { rendererDir }: { rendererDir: string }) {
  const indexHtml = join(rendererDir, 'index.html');
  const assetsDir = join(rendererDir, 'assets');
  if (!existsSync(indexHtml)) {
    app.log.warn({ rendererDir }, 'renderer is not built; run `npm run build`');
  } else {
    await app.register(fastifyStatic, {
      root: rendererDir,
      wildcard: true,
      index: 'index.html',
      setHeaders: (reply, path) => {
        securityHeaders(reply);
        // Vite puts a content hash in every asset name; the page itself must always be revalidated.
        reply.header(
          'cache-control',
          path.startsWith(assetsDir) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const wantsPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      !API_PREFIXES.some((prefix) => path.startsWith(prefix)) &&
      !/\.[a-z0-9]+$/i.test(path) &&
      (request.headers.accept ?? '').includes('text/html');
    if (!wantsPage) return notFound(request, reply);
    securityHeaders(reply);
    if (!existsSync(indexHtml)) {
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .send(
          '<!doctype html><meta charset="utf-8"><title>Towpath</title>' +
            '<p>The Towpath renderer has not been built. Run <code>npm run build</code> and reload.</p>',
        );
    }
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html');
  });
}
