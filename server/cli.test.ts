import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Running, runNode, startNode } from './testing/process.ts';
import { makeTempDir } from './testing/workstation.ts';
import { VERSION } from './version.ts';

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
    // The chosen URLs are logged as JSON for scripts, too.
    const started = r
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((entry) => entry.urls);
    expect(started.urls).toEqual({ lan, winding });
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
    expect(done.stdout).toContain('"msg":"Towpath stopped"');
    await expect(fetch(`${lan}/healthz`)).rejects.toThrow();
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
