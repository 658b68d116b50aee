import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSION } from '../bridge/version.ts';
import { type Running, runNode, startNode } from './testing/process.ts';
import { makeTempDir } from './testing/workstation.ts';

const CLI = 'server/cli.ts';
const RUNNING = /is running\. Open (http:\/\/[^/]+)\/ \(winding door (http:\/\/[^)]+)\)/;

const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.child.kill('SIGKILL');
});

async function serve(env: Record<string, string>) {
  const dataDir = await makeTempDir();
  const r = startNode(CLI, ['serve'], {
    HOST: '127.0.0.1',
    TOWPATH_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...env,
  });
  running.push(r);
  const [, lan, winding] = await r.waitFor(RUNNING);
  return { r, lan: lan as string, winding: winding as string, dataDir };
}

/** The core's JSON log in the data dir, one entry per line. */
async function jsonLog(dataDir: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(dataDir, 'towpath.log'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** The one-line failure contract: exit 1, a single `towpath: …` line on stderr, no stack trace. */
function expectOneLineFailure(result: { code: number | null; stderr: string }, line: string) {
  expect(result.code).toBe(1);
  expect(result.stderr).toBe(`towpath: ${line}\n`);
}

describe('towpath serve', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('runs both doors until %s, then stops cleanly', async (signal) => {
    const { r, lan, winding, dataDir } = await serve({ PORT: '0', WINDING_PORT: '0' });
    for (const url of [lan, winding]) {
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', version: VERSION });
    }
    // The chosen URLs are logged as JSON for scripts, too, in the data dir's log.
    const started = (await jsonLog(dataDir)).find((entry) => entry.urls);
    expect(started?.urls).toEqual({ lan, winding });
    // A fresh install prints the first-run setup code it keeps in the data dir.
    const code = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    await r.waitFor(/First-run setup code: (\S+)/);
    expect(r.stderr()).toContain(`First-run setup code: ${code}\n`);
    // Tools on this PC find it through workstation.json, until it stops.
    const announced = join(dataDir, 'workstation.json');
    expect(JSON.parse(await readFile(announced, 'utf8'))).toMatchObject({
      pid: r.child.pid,
      lanUrl: lan,
      windingUrl: winding,
    });

    r.child.kill(signal);
    const done = await r.finished;
    expect(done.code).toBe(0);
    await expect(stat(announced)).rejects.toThrow();
    expect((await jsonLog(dataDir)).map((entry) => entry.msg)).toContain('Towpath stopped');
    expect(done.stderr).toMatch(/Towpath stopped\.\n$/);
    await expect(fetch(`${lan}/healthz`)).rejects.toThrow();
  });

  it('shows a person one line per notable event, and keeps the JSON log with every request in the data dir', async () => {
    // A value out of range is a warning at start-up: one line, as a person reads it.
    const { r, lan, dataDir } = await serve({ PORT: '0', WINDING_PORT: '0', AUTH_LOGIN_MAX_ATTEMPTS: '0' });
    await r.waitFor(/First-run setup code: /);
    // Requests fastify logs at info (a health check logs only its failures).
    for (let i = 0; i < 3; i++) expect((await fetch(`${lan}/api/no-such-route`)).status).toBe(404);
    r.child.kill('SIGTERM');
    const done = await r.finished;
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('');
    const lines = done.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([
      expect.stringMatching(
        /^\d\d:\d\d:\d\d warning: AUTH_LOGIN_MAX_ATTEMPTS=0 is out of range \(1–10000\); using 1$/,
      ),
      expect.stringMatching(RUNNING),
      expect.stringMatching(/^Machine process attached \(machine door http:\/\/127\.0\.0\.1:\d+\)\.$/),
      `Log: ${join(dataDir, 'towpath.log')}`,
      expect.stringMatching(/^First-run setup code: \S+$/),
      'Towpath stopped.',
    ]);
    // Every request is in the file, as JSON, for whoever needs to look.
    const log = await jsonLog(dataDir);
    const count = (msg: string) => log.filter((entry) => entry.msg === msg).length;
    expect(count('incoming request')).toBe(3);
    expect(count('request completed')).toBe(3);
    expect(log.map((entry) => entry.msg)).toContain('Towpath stopped');
  });

  it('prints the JSON log on stdout with LOG_FORMAT=json, as it writes to the data dir', async () => {
    const { r, lan, dataDir } = await serve({ PORT: '0', WINDING_PORT: '0', LOG_FORMAT: 'json' });
    expect((await fetch(`${lan}/api/no-such-route`)).status).toBe(404);
    r.child.kill('SIGTERM');
    const done = await r.finished;
    expect(done.code).toBe(0);
    const printed = done.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(printed).toEqual(await jsonLog(dataDir));
    expect(printed.map((entry) => entry.msg)).toEqual(
      expect.arrayContaining(['incoming request', 'request completed', 'Towpath stopped']),
    );
    // The person's lines stay on stderr, and no JSON is among them.
    expect(done.stderr).toMatch(RUNNING);
    expect(done.stderr).not.toContain('{');
  });

  it('refuses a second instance on the same ports with one clear line', async () => {
    const first = await serve({ PORT: '0', WINDING_PORT: '0' });
    const lanPort = new URL(first.lan).port;
    const windingPort = new URL(first.winding).port;
    const dataDir = await makeTempDir();
    const env = { HOST: '127.0.0.1', TOWPATH_DATA_DIR: dataDir };

    const both = await runNode(CLI, ['serve'], { ...env, PORT: lanPort, WINDING_PORT: windingPort });
    expectOneLineFailure(
      both,
      `cannot start the winding door on 127.0.0.1:${windingPort}: the port is already in use`,
    );

    const lanOnly = await runNode(CLI, ['serve'], { ...env, PORT: lanPort, WINDING_PORT: '0' });
    expectOneLineFailure(
      lanOnly,
      `cannot start the LAN door on 127.0.0.1:${lanPort}: the port is already in use`,
    );

    // The first instance is untouched.
    expect((await fetch(`${first.lan}/healthz`)).status).toBe(200);
  }, 60_000); // three full core starts: slow on a loaded machine

  it('refuses an invalid environment value with one clear line', async () => {
    expectOneLineFailure(
      await runNode(CLI, ['serve'], { PORT: 'http' }),
      'invalid PORT="http": PORT must be an integer between 0 and 65535',
    );
    expectOneLineFailure(
      await runNode(CLI, ['serve'], { PORT: '0', WINDING_PORT: '99999' }),
      'invalid WINDING_PORT="99999": WINDING_PORT must be an integer between 0 and 65535',
    );
  });

  it('refuses an unusable data dir with one clear line', async () => {
    const root = await makeTempDir();
    const file = join(root, 'file');
    await writeFile(file, '');
    expectOneLineFailure(
      await runNode(CLI, ['serve'], { PORT: '0', WINDING_PORT: '0', TOWPATH_DATA_DIR: join(file, 'data') }),
      `data dir ${join(file, 'data')} is not usable (ENOTDIR): a file is in the way of the folder`,
    );
  });
});

describe('towpath', () => {
  it('prints help, its version, and refuses unknown commands', async () => {
    const help = await runNode(CLI, ['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: towpath <command>');
    expect(help.stdout).toContain('serve');

    const bare = await runNode(CLI, [], {});
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('Usage: towpath <command>');

    expect(await runNode(CLI, ['--version'], {})).toMatchObject({ code: 0, stdout: `towpath ${VERSION}\n` });
    expect(await runNode(CLI, ['wind'], {})).toMatchObject({
      code: 2,
      stderr: "towpath: unknown command 'wind' (try towpath --help)\n",
    });
    expect(await runNode(CLI, ['serve', 'extra'], {})).toMatchObject({ code: 2 });
  });
});
