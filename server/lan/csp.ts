import { createHash } from 'node:crypto';
import { FRAME_LOADER } from './frame-loader.ts';

/**
 * Content-Security-Policy for every renderer page, in a LAN browser and in the Electron window alike
 * (the Electron shell applies this same string). Only our own origin may supply code, styles and
 * data; workers may come from blob: URLs because the 3D view builds geometry in a Web Worker. The
 * e-stop may also go to the machine process's door on loopback, by POST or over its WebSocket line
 * (its port can change when the
 * machine process restarts on a free port, hence any port; the door itself allows only our origins).
 * Images alone may come from any http(s) address: dashboard picture widgets show cameras and charts
 * from the shop's own servers, fetched by the viewer's browser (`dashboard-document.md` §5.2). An
 * image cannot run code, and the page's connections stay limited by connect-src.
 * Frames: only our own widget frame document (default-src 'self'); see WIDGET_FRAME_CSP.
 */
export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: http: https:",
  "font-src 'self'",
  "connect-src 'self' http://127.0.0.1:* ws://127.0.0.1:*",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the core serves the frame document of trusted dashboard widgets. */
export const WIDGET_FRAME_PATH = '/widget-frame';

/**
 * The widget frame's own policy. Trusted widgets (`trusted_html`, `base` with script or resources)
 * are code an admin allowed (TRUSTED execution mode), so inline script and style run, and `base`
 * resources load from http(s). The `sandbox` directive makes the document an opaque origin even if
 * opened outside its iframe (the iframe adds its own sandbox too): it cannot reach the app's DOM,
 * storage or session. It gets data only through `towpath:update` messages, so it may not fetch
 * (connect-src 'none'), submit forms or be framed by other sites.
 */
export const WIDGET_FRAME_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline' http: https:",
  "style-src 'unsafe-inline' http: https:",
  'img-src data: blob: http: https:',
  'font-src data: http: https:',
  'media-src data: http: https:',
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
  'sandbox allow-scripts allow-popups',
].join('; ');

/** Where the core serves the frame document of untrusted `base` widgets (HTML and style only). */
export const STATIC_WIDGET_FRAME_PATH = '/widget-frame/static';

/**
 * The untrusted `base` frame's policy: the author's style and pictures, and no script but the loader
 * that writes the content in (allowed by its hash; the author's scripts and event handlers match no
 * hash). Scripts are allowed to the frame's sandbox for that loader only.
 */
export const STATIC_WIDGET_FRAME_CSP = [
  "default-src 'none'",
  `script-src '${frameLoaderHash()}'`,
  "style-src 'unsafe-inline'",
  'img-src data: blob: http: https:',
  'font-src data:',
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
  'sandbox allow-scripts',
].join('; ');

function frameLoaderHash(): string {
  return `sha256-${createHash('sha256').update(FRAME_LOADER).digest('base64')}`;
}

/** The policy for a document the app loads: the widget frame keeps its own, everything else the app's. */
export function contentSecurityPolicyFor(url: string): string {
  try {
    const { pathname } = new URL(url);
    if (pathname === WIDGET_FRAME_PATH) return WIDGET_FRAME_CSP;
    return pathname === STATIC_WIDGET_FRAME_PATH ? STATIC_WIDGET_FRAME_CSP : RENDERER_CSP;
  } catch {
    return RENDERER_CSP;
  }
}
