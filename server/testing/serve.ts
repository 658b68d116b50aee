// Test support: `towpath serve` with the cheap test Argon2id cost, as a child process that tests can
// kill (SIGKILL) in the middle of work. Prints the LAN URL on stdout once it listens.
import { pino } from 'pino';
import { loadConfig } from '../config.ts';
import { startWorkstation } from '../main.ts';
import { TEST_ARGON2_COST } from './argon2.ts';

const workstation = await startWorkstation(loadConfig(process.env), {
  logger: pino({ level: 'silent' }),
  dashboardApi: { argon2Cost: TEST_ARGON2_COST },
});
process.stdout.write(`listening ${workstation.urls.lan}\n`);
