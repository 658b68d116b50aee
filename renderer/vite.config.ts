import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The renderer is served by the LAN door from dist/renderer (npm run build); in development,
// `vite` proxies the core's routes so the same relative URLs work.
export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:4001',
      '/healthz': 'http://127.0.0.1:4001',
      '/graphql': 'http://127.0.0.1:4001',
    },
  },
});
