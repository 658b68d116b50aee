// Test support: `towpath serve` with the cheap test Argon2id cost, as a child process that tests can
// kill (SIGKILL) in the middle of work. Prints the LAN URL on stdout once it listens.
// TOWPATH_TEST_MACHINE_TIMINGS (JSON) shortens the protocol timings of a machine process it starts.
import { pino } from 'pino';
import { loadConfig } from '../config/index.ts';
import { startWorkstation } from '../main.ts';
import { TEST_ARGON2_COST } from './argon2.ts';

const timings = process.env.TOWPATH_TEST_MACHINE_TIMINGS;
const workstation = await startWorkstation(loadConfig(process.env), {
  logger: pino({ level: 'silent' }),
  dashboardApi: { argon2Cost: TEST_ARGON2_COST },
  ...(timings ? { machine: { timings: JSON.parse(timings) } } : {}),
});
process.stdout.write(`listening ${workstation.urls.lan} ${workstation.urls.machine}\n`);
