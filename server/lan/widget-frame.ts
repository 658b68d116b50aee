// The frame document of trusted dashboard widgets (`dashboard-document.md` §5.3, served instead of
// `srcdoc` so the frame can have its own Content-Security-Policy while the app's stays strict).
// The renderer loads it in an iframe sandboxed with `allow-scripts` (never `allow-same-origin`) and
// posts `{type: "towpath:content", html}` once: the document replaces itself with that HTML, whose
// scripts then hear the usual `towpath:update` messages. Only the parent window is listened to.
// Untrusted `base` content (HTML and style, no script) gets the same document at another address,
// whose policy runs this loader alone (pinned by hash) and refuses every script the content brings:
// a `srcdoc` frame would inherit the app's policy, which refuses the author's inline style.
import type { FastifyInstance } from 'fastify';
import {
  STATIC_WIDGET_FRAME_CSP,
  STATIC_WIDGET_FRAME_PATH,
  WIDGET_FRAME_CSP,
  WIDGET_FRAME_PATH,
} from './csp.ts';
import { FRAME_LOADER } from './frame-loader.ts';

export const WIDGET_FRAME_HTML = `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Towpath widget</title>
<script>${FRAME_LOADER}</script>
</html>
`;

export async function widgetFrameRoute(app: FastifyInstance): Promise<void> {
  const frames: [path: string, policy: string][] = [
    [WIDGET_FRAME_PATH, WIDGET_FRAME_CSP],
    [STATIC_WIDGET_FRAME_PATH, STATIC_WIDGET_FRAME_CSP],
  ];
  for (const [path, policy] of frames)
    app.get(path, async (_request, reply) =>
      reply
        .header('content-security-policy', policy)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(WIDGET_FRAME_HTML),
    );
}
