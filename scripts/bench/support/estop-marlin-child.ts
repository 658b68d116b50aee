// The e-stop benchmark's controller (machine-process.ts): a fake Marlin on a fresh pseudo-terminal
// pair in a process of its own, as a real controller is, so nothing the benchmark process does
// (Playwright, the load it generates) can delay seeing M112. Says on stdout, one line each:
// `port <path>`, then `streaming` once 20 job lines have arrived, then `m112 <ms>` with the arrival
// time on the shared clock (performance.timeOrigin + performance.now(), ms since the epoch). Ends
// on SIGTERM.
//
// It acknowledges each line after 1 ms, about the pace of a 250000-baud line (spec/winding.md §6.6:
// at most ≈ 625 lines/s), as no controller on a serial port answers faster. Answered at once over
// the pseudo-terminal, the job ran at 7,000+ lines/s and became a CPU load of its own, which no
// real winder produces, and which the machine process's raised priority (MACHINE_NICE) then took
// from the benchmark's `towpath estop` spawns.
import { attachFakeMarlin } from '../../../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../../../server/machine/testing/pty-pair.ts';

const pair = await createPtyPair(30_000);
const { fake, close } = await attachFakeMarlin(pair.far, { ackDelayMs: 1 });
process.stdout.write(`port ${pair.near}\n`);
void fake
  .until(() => fake.accepted.length >= 20, 120_000)
  .then(
    () => process.stdout.write('streaming\n'),
    () => {},
  );
void fake
  .until(() => fake.estopAt !== undefined, 120_000)
  .then(
    () => process.stdout.write(`m112 ${performance.timeOrigin + (fake.estopAt as number)}\n`),
    () => {},
  );
process.once('SIGTERM', async () => {
  await close();
  await pair.dispose();
  process.exit(0);
});
