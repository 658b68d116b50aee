import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SECRET_NAMES } from './config/secrets.ts';
import { loadSecrets } from './secrets.ts';
import { makeTempDir } from './testing/workstation.ts';

const silent = pino({ level: 'silent' });

describe('loadSecrets', () => {
  it('generates every secret once, keeps it in secrets.json (0600) and reuses it', async () => {
    const dir = await makeTempDir();
    const first = await loadSecrets(dir, {}, silent);
    expect(Object.keys(first).sort()).toEqual([...SECRET_NAMES].sort());
    for (const value of Object.values(first)) expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(join(dir, 'secrets.json'))).mode & 0o777).toBe(0o600);
    expect(await loadSecrets(dir, {}, silent)).toEqual(first);
  });

  it('lets the environment win without writing it to disk', async () => {
    const dir = await makeTempDir();
    const jwt = 'j'.repeat(40);
    const secrets = await loadSecrets(dir, { JWT_SECRET: jwt }, silent);
    expect(secrets.JWT_SECRET).toBe(jwt);
    const file = JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8'));
    expect(file.JWT_SECRET).toBeUndefined();
    expect(Object.keys(file).length).toBe(4);
  });

  it('resets broader permissions to 0600', async () => {
    const dir = await makeTempDir();
    await loadSecrets(dir, {}, silent);
    await chmod(join(dir, 'secrets.json'), 0o644);
    await loadSecrets(dir, {}, silent);
    expect((await stat(join(dir, 'secrets.json'))).mode & 0o777).toBe(0o600);
  });

  it('warns when it has to generate secrets for a database that already exists', async () => {
    const dir = await makeTempDir();
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    await loadSecrets(dir, {}, logger);
    expect(lines.map((line) => line.level)).toEqual([30]);
    // secrets.json lost while the database stays: the new values void what the old ones signed.
    await writeFile(join(dir, 'towpath.db'), '');
    const file = JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8'));
    delete file.JWT_SECRET;
    await writeFile(join(dir, 'secrets.json'), JSON.stringify(file), { mode: 0o600 });
    lines.length = 0;
    await loadSecrets(dir, {}, logger);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe(40);
    expect(lines[0]?.msg).toMatch(/^generated new JWT_SECRET for an existing database: sessions/);
    lines.length = 0;
    await loadSecrets(dir, {}, logger);
    expect(lines).toEqual([]);
  });

  it.each([
    ['not json', /is not valid JSON/],
    ['[1, 2]', /must hold a JSON object/],
    ['{"JWT_SECRET": 5}', /JWT_SECRET must be a string/],
    ['{"TOKEN_PEPPER": "short"}', /invalid TOKEN_PEPPER: TOKEN_PEPPER must be at least 32 bytes \(got 5\)/],
  ])('refuses an invalid file (%s) and never regenerates it', async (content, message) => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'secrets.json'), content, { mode: 0o600 });
    await expect(loadSecrets(dir, {}, silent)).rejects.toThrow(message);
    expect(await readFile(join(dir, 'secrets.json'), 'utf8')).toBe(content);
  });
});
