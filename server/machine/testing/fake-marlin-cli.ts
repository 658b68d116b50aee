// A fake Marlin to stream to by hand: `node server/machine/testing/fake-marlin-cli.ts [--delay ms]`
// makes a pty pair, answers on one end and prints the other end's path for `towpath stream --port`.
// Ctrl-C prints how many commands it accepted.
import { parseArgs } from 'node:util';
import { attachFakeMarlin } from './fake-marlin-port.ts';
import { createPtyPair } from './pty-pair.ts';

const { values } = parseArgs({ options: { delay: { type: 'string', default: '0' } } });
const pair = await createPtyPair();
const { fake, close } = await attachFakeMarlin(pair.far, { ackDelayMs: Number(values.delay) });
process.stdout.write(`${pair.near}\n`);
process.on('SIGINT', async () => {
  process.stderr.write(`fake Marlin accepted ${fake.commands.length} commands\n`);
  await close();
  await pair.dispose();
  process.exit(0);
});
