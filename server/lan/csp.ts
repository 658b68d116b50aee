/**
 * Content-Security-Policy for every renderer page, in a LAN browser and in the Electron window alike
 * (the Electron shell applies this same string). Only our own origin may supply code, styles and
 * data; workers may come from blob: URLs because the 3D view builds geometry in a Web Worker.
 */
export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
