// `npm run fake-host -- [--port N] [--version V] [--token T] [--seed S]`: the test host, standalone,
// for trying the bridge by hand without Super Productivity.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startFakeHost, versionAtLeast } from './server.ts';

const USAGE =
  'Usage: npm run fake-host -- [--port N] [--version 18.10.0|18.17.0|…] [--token T] ' +
  '[--seed clean|anomalies|malformed|big:N]\n';

function fail(message: string): never {
  process.stderr.write(`fake-host: ${message}\n${USAGE}`);
  process.exit(2);
}

let values: { port: string; version: string; token?: string; seed: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      version: { type: 'string', default: '18.17.0' },
      token: { type: 'string' },
      seed: { type: 'string', default: 'clean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  fail((error as Error).message.split('\n')[0] ?? 'invalid arguments');
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const port = Number(values.port);
if (!/^\d+$/.test(values.port) || port > 65535)
  fail(`--port must be an integer from 0 to 65535 (got '${values.port}')`);
if (!/^\d+\.\d+\.\d+$/.test(values.version))
  fail(`--version must look like 18.17.0 (got '${values.version}')`);

// 18.17 and later answer only with a token; without one given, make one so the host is usable.
const needsToken = versionAtLeast(values.version, '18.17.0');
const token = values.token ?? (needsToken ? randomBytes(12).toString('hex') : undefined);

let host: Awaited<ReturnType<typeof startFakeHost>>;
try {
  host = await startFakeHost({
    port,
    version: values.version,
    seed: values.seed,
    ...(token ? { token } : {}),
  });
} catch (error) {
  fail((error as Error).message);
}
process.stdout.write(`fake task host ${values.version} listening on ${host.url}\n`);
if (token) process.stdout.write(`token: ${token}  (export TASK_HOST_TOKEN=${token})\n`);
const stop = () => void host.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
