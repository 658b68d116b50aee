import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

// The package has no types and no exports map; its folder is all that is needed.
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Towpath winding service</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: true,
  displayRequestDuration: true,
});
`;

/** `/docs`: Swagger UI from the installed package (no CDN) and `/openapi.json`. */
export async function docsRoutes(app: FastifyInstance, { document }: { document: unknown }) {
  const body = JSON.stringify(document);
  app.get('/openapi.json', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/docs/init.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(INIT),
  );
  await app.register(fastifyStatic, {
    root: SWAGGER_UI_DIR,
    prefix: '/docs/assets/',
    // Only what the page loads; the package also carries a demo page pointing at a public API.
    allowedPath: (path) =>
      /^\/?(swagger-ui\.css|swagger-ui-bundle\.js|favicon-(16x16|32x32)\.png)$/.test(path),
    decorateReply: false,
  });
}
