// The core's logger on a real data dir: the JSON log in the file, and what the terminal shows in
// each format.
import { existsSync } from 'node:fs';
import { readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogFormat, LogLevel } from './config/index.ts';
import { CORE_LOG_FILE, createCoreLogger, humanLine } from './log.ts';
import { makeTempDir } from './testing/workstation.ts';

async function logger(logFormat: LogFormat, logLevel: LogLevel = 'info') {
  const dataDir = await makeTempDir();
  const stdout: string[] = [];
  const stderr: string[] = [];
  const log = createCoreLogger(
    { logLevel, logFormat, dataDir },
    {
      stdout: { write: (text: string) => stdout.push(text) },
      stderr: { write: (text: string) => stderr.push(text) },
    },
  );
  const file = join(dataDir, CORE_LOG_FILE);
  const lines = async () => (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  return { log, dataDir, file, stdout, stderr, lines };
}

/** What a door logs per request, and the events around it. */
function someEvents(log: ReturnType<typeof createCoreLogger>) {
  const door = log.child({ door: 'LAN' });
  door.info({ reqId: 'req-1', req: { method: 'GET', url: '/' } }, 'incoming request');
  door.info({ reqId: 'req-1', res: { statusCode: 200 }, responseTime: 1.5 }, 'request completed');
  log.debug('a detail');
  log.warn({ err: new Error('EACCES: permission denied') }, 'could not write workstation.json');
  door.error({ err: new Error('database is locked'), url: '/graphql' }, 'request failed');
}

describe('createCoreLogger', () => {
  it('shows a person one line per warning or error and keeps every event as JSON in the data dir', async () => {
    const t = await logger('human');
    someEvents(t.log);
    expect(t.stdout).toEqual([]);
    expect(t.stderr).toEqual([
      expect.stringMatching(
        /^\d\d:\d\d:\d\d warning: could not write workstation\.json: EACCES: permission denied\n$/,
      ),
      expect.stringMatching(/^\d\d:\d\d:\d\d error: request failed: database is locked\n$/),
    ]);
    const entries = (await t.lines()).map((line) => JSON.parse(line));
    expect(entries.map((entry) => entry.msg)).toEqual([
      'incoming request',
      'request completed',
      'could not write workstation.json',
      'request failed',
    ]);
    expect(entries[0]).toMatchObject({ level: 30, name: 'towpath', door: 'LAN', reqId: 'req-1' });
    expect(entries[3]).toMatchObject({ level: 50, err: { message: 'database is locked' }, url: '/graphql' });
  });

  it('with LOG_FORMAT=json prints on stdout exactly the JSON it writes to the file', async () => {
    const t = await logger('json');
    someEvents(t.log);
    expect(t.stderr).toEqual([]);
    expect(t.stdout.join('').split('\n').filter(Boolean)).toEqual(await t.lines());
    expect(await t.lines()).toHaveLength(4);
  });

  it('follows LOG_LEVEL in the file and on the terminal', async () => {
    const debug = await logger('human', 'debug');
    someEvents(debug.log);
    expect((await debug.lines()).map((line) => JSON.parse(line).msg)).toContain('a detail');
    expect(debug.stderr).toHaveLength(2);
    const errors = await logger('human', 'error');
    someEvents(errors.log);
    expect(errors.stderr).toEqual([expect.stringContaining('error: request failed')]);
    expect(await errors.lines()).toHaveLength(1);
    const silent = await logger('json', 'silent');
    someEvents(silent.log);
    expect(silent.stdout).toEqual([]);
    expect(existsSync(silent.file)).toBe(false);
  });

  it('opens the file at the first line, and an unwritable one costs only the file', async () => {
    const t = await logger('human');
    expect(existsSync(t.file)).toBe(false);
    t.log.info('first');
    expect(existsSync(t.file)).toBe(true);
    // A data dir that is a file: nothing to write to, yet the terminal still shows the error.
    const root = await makeTempDir();
    await writeFile(join(root, 'file'), '');
    const stderr: string[] = [];
    const log = createCoreLogger(
      { logLevel: 'info', logFormat: 'human', dataDir: join(root, 'file') },
      { stdout: { write: () => {} }, stderr: { write: (text: string) => stderr.push(text) } },
    );
    log.error('the machine process could not start');
    expect(stderr).toEqual([expect.stringContaining('error: the machine process could not start')]);
  });

  it('keeps a log grown past 10 MB as towpath.log.1 and starts a new one', async () => {
    const dataDir = await makeTempDir();
    const file = join(dataDir, CORE_LOG_FILE);
    await writeFile(file, '');
    await truncate(file, 11 * 1024 * 1024);
    const log = createCoreLogger(
      { logLevel: 'info', logFormat: 'json', dataDir },
      { stdout: { write: () => {} }, stderr: { write: () => {} } },
    );
    log.info('after the rotation');
    expect((await stat(`${file}.1`)).size).toBe(11 * 1024 * 1024);
    expect(JSON.parse(await readFile(file, 'utf8')).msg).toBe('after the rotation');
  });
});

describe('humanLine', () => {
  it('says nothing for info, debug or anything that is not a log line', () => {
    expect(humanLine('{"level":30,"msg":"incoming request"}')).toBeUndefined();
    expect(humanLine('{"level":20,"msg":"a detail"}')).toBeUndefined();
    expect(humanLine('not json')).toBeUndefined();
  });

  it('does not repeat an error message that is the message itself', () => {
    expect(humanLine('{"level":60,"time":0,"msg":"boom","err":{"message":"boom"}}')).toMatch(
      / fatal: boom\n$/,
    );
  });
});
