import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{engine,server,bridge,renderer,electron,scripts}/**/*.test.{ts,tsx}', '*.test.ts'],
    environment: 'node',
    // Integration tests start real servers and processes; give them room on a 2-core machine.
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
