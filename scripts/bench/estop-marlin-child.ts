// The e-stop benchmark's controller (machine-process.ts): a fake Marlin on a fresh pseudo-terminal
// pair in a process of its own, as a real controller is, so nothing the benchmark process does
// (Playwright, the load it generates) can delay seeing M112. Says on stdout, one line each:
// `port <path>`, then `streaming` once 20 job lines have arrived, then `m112 <ms>` with the arrival
// time on the shared clock (performance.timeOrigin + performance.now(), ms since the epoch). Ends
// on SIGTERM.
import { attachFakeMarlin } from '../../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../../server/machine/testing/pty-pair.ts';

const pair = await createPtyPair(30_000);
const { fake, close } = await attachFakeMarlin(pair.far);
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
