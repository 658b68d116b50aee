import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{engine,server,bridge,renderer,electron,scripts}/**/*.test.{ts,tsx}', '*.test.ts'],
    environment: 'node',
    // Integration tests start real servers and processes; give them room on a 2-core machine.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // At least two files at once even on 2 cores: most integration tests wait on processes, ports
    // and serial lines rather than compute, and one worker left the second core idle (a full run
    // took ~480 s with one worker, ~400 s with two, all passing).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
