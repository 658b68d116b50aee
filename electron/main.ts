// Electron entry point (bundled to dist/electron/main.js by `npm run build`).
import { startDesktop } from './desktop.ts';

void startDesktop();
