// `npm run fake-host -- [--port N] [--version V] [--token T] [--seed S]`: the test host, standalone,
// for trying the bridge by hand without Super Productivity.
import { parseArgs } from 'node:util';
import { startFakeHost } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    version: { type: 'string', default: '18.17.0' },
    token: { type: 'string' },
    seed: { type: 'string', default: 'clean' },
  },
});
const host = await startFakeHost({
  port: Number(values.port),
  version: values.version,
  seed: values.seed,
  ...(values.token === undefined ? {} : { token: values.token }),
});
process.stdout.write(`fake task host ${values.version} listening on ${host.url}\n`);
const stop = () => void host.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
