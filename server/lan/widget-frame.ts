// The frame document of trusted dashboard widgets (`dashboard-document.md` §5.3, served instead of
// `srcdoc` so the frame can have its own Content-Security-Policy while the app's stays strict).
// The renderer loads it in an iframe sandboxed with `allow-scripts` (never `allow-same-origin`) and
// posts `{type: "towpath:content", html}` once: the document replaces itself with that HTML, whose
// scripts then hear the usual `towpath:update` messages. Only the parent window is listened to.
import type { FastifyInstance } from 'fastify';
import { WIDGET_FRAME_CSP, WIDGET_FRAME_PATH } from './csp.ts';

export const WIDGET_FRAME_HTML = `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Towpath widget</title>
<script>
addEventListener('message', function take(event) {
  var data = event.data;
  if (event.source !== parent || !data || data.type !== 'towpath:content' || typeof data.html !== 'string') return;
  removeEventListener('message', take);
  document.open();
  document.write(data.html);
  document.close();
});
</script>
</html>
`;

export async function widgetFrameRoute(app: FastifyInstance): Promise<void> {
  app.get(WIDGET_FRAME_PATH, async (_request, reply) =>
    reply
      .header('content-security-policy', WIDGET_FRAME_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(WIDGET_FRAME_HTML),
  );
}
