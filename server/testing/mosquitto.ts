// Test support: a real MQTT broker. Each call starts its own Mosquitto on a free loopback port with
// its own config file (optionally with a password file, an ACL and a TLS listener with its own CA),
// and `stop()` ends it. `restart()` brings it back on the same port, for tests of a broker that dies
// mid-stream.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

export const MOSQUITTO =
  ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((path) => existsSync(path)) ?? 'mosquitto';

export interface Mosquitto {
  port: number;
  /** `mqtt://127.0.0.1:<port>`, or `mqtts://localhost:<port>` with `tls`. */
  url: string;
  /** With `tls`: the test CA's certificate (PEM file) that signed the broker's. */
  caFile: string | null;
  /** Kills the broker (SIGKILL: as abrupt as a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** What the broker has logged since it last started (errors; subscriptions with `logSubscriptions`). */
  log(): string;
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited with ${child.exitCode}: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`mosquitto did not listen on ${port}: ${output()}`);
}

export interface MosquittoOptions {
  /** Require this user (no anonymous clients). */
  user?: { username: string; password: string };
  /** More users besides `user` (then no anonymous clients either). */
  users?: { username: string; password: string }[];
  /** Lines of an ACL file (`pattern write towpath/v1/%u/#`, `user viewer`, …). */
  acl?: string[];
  /** A TLS listener with a certificate for localhost and 127.0.0.1 from a CA made for this broker. */
  tls?: boolean;
  /** Log every SUBSCRIBE (`<time>: <client id> <qos> <filter>`), to see what each client asked for. */
  logSubscriptions?: boolean;
}

/** A throwaway CA and a broker certificate it signed, for names localhost and 127.0.0.1. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.crt'),
      '-days',
      '2',
      '-subj',
      '/CN=Towpath test CA',
    ],
    { stdio: 'ignore' },
  );
  execFileSync(
    'openssl',
    ['req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost'],
    { stdio: 'ignore' },
  );
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  execFileSync(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file('server.crt'),
      '-days',
      '2',
      '-extfile',
      file('server.ext'),
    ],
    { stdio: 'ignore' },
  );
  return { ca: file('ca.crt'), cert: file('server.crt'), key: file('server.key') };
}

export async function startMosquitto(options: MosquittoOptions = {}): Promise<Mosquitto> {
  const dir = await mkdtemp(join(tmpdir(), 'towpath-mosquitto-'));
  const port = await freePort();
  // Started as root, Mosquitto would drop to a `mosquitto` user that cannot read this test's folder.
  const lines = [
    `listener ${port} 127.0.0.1`,
    `user ${userInfo().username}`,
    'persistence false',
    // A burst to a busy subscriber is queued, not dropped (benchmarks count lost messages).
    'max_queued_messages 0',
    'log_dest stderr',
    'log_type error',
    ...(options.logSubscriptions ? ['log_type subscribe'] : []),
  ];
  const users = [...(options.user ? [options.user] : []), ...(options.users ?? [])];
  if (users.length > 0) {
    const passwords = join(dir, 'passwd');
    await writeFile(passwords, '');
    // mosquitto_passwd hashes the password the way the broker reads it.
    for (const user of users)
      execFileSync('mosquitto_passwd', ['-b', passwords, user.username, user.password]);
    lines.push('allow_anonymous false', `password_file ${passwords}`);
  } else lines.push('allow_anonymous true');
  if (options.acl) {
    const acl = join(dir, 'acl');
    await writeFile(acl, `${options.acl.join('\n')}\n`);
    lines.push(`acl_file ${acl}`);
  }
  const certificates = options.tls ? makeCertificates(dir) : null;
  if (certificates)
    lines.push(`cafile ${certificates.ca}`, `certfile ${certificates.cert}`, `keyfile ${certificates.key}`);
  const config = join(dir, 'mosquitto.conf');
  await writeFile(config, `${lines.join('\n')}\n`);
  return {
    ...(await runMosquitto(config, port, dir)),
    url: certificates ? `mqtts://localhost:${port}` : `mqtt://127.0.0.1:${port}`,
    caFile: certificates?.ca ?? null,
  };
}

/**
 * Mosquitto on a config file written elsewhere (a recipe's), listening on `port`; `stop()` also
 * removes `dir`.
 */
export async function runMosquitto(
  config: string,
  port: number,
  dir: string,
): Promise<Omit<Mosquitto, 'url' | 'caFile'>> {
  let child: ChildProcess;
  let output = '';
  const launch = async () => {
    output = '';
    child = spawn(MOSQUITTO, ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    await waitForPort(port, child, () => output);
  };
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  };
  await launch();
  return {
    port,
    log: () => output,
    kill: () => end('SIGKILL'),
    restart: launch,
    stop: async () => {
      await end('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
