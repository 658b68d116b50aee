// Test support: the machine process's entry, held back until `<data dir>/machine-gate` exists, so a
// test sees a core whose machine process is still starting (or starting again after a crash) for as
// long as it needs, instead of for the fraction of a second a real start takes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../config/index.ts';

const gate = join(loadConfig().dataDir, 'machine-gate');
while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 10));
await import('../process/entry.ts');
