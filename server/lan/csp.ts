/**
 * Content-Security-Policy for every renderer page, in a LAN browser and in the Electron window alike
 * (the Electron shell applies this same string). Only our own origin may supply code, styles and
 * data; workers may come from blob: URLs because the 3D view builds geometry in a Web Worker. The
 * e-stop may also go to the machine process's door on loopback (its port can change when the
 * machine process restarts on a free port, hence any port; the door itself allows only our origins).
 */
export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self' http://127.0.0.1:*",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
