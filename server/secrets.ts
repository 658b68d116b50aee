import { randomBytes } from 'node:crypto';
import { access, chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigError } from './config/env.ts';
import { checkSecret, SECRET_NAMES, type SecretName } from './config/secrets.ts';
import { DATABASE_FILE } from './db/database.ts';
import { StartupError } from './errors.ts';
import type { Logger } from './log.ts';

export type Secrets = Readonly<Record<SecretName, string>>;

export const SECRETS_FILE = 'secrets.json';

/**
 * Every secret of dashboard spec §18: the environment wins and is never written to disk; otherwise
 * the value kept in `<data dir>/secrets.json`; otherwise a fresh one, generated once and added to the
 * file, so restarts keep sessions and issued tokens valid. A file that cannot be read or parsed stops
 * the start: regenerating would silently log everyone out and void every issued token.
 */
export async function loadSecrets(
  dataDir: string,
  configured: Partial<Record<SecretName, string>>,
  logger: Logger,
  random: (bytes: number) => Buffer = randomBytes,
): Promise<Secrets> {
  const path = join(dataDir, SECRETS_FILE);
  const stored = await readStored(path, logger);
  const resolved: Partial<Record<SecretName, string>> = {};
  const generated: SecretName[] = [];
  for (const name of SECRET_NAMES) {
    const fromEnv = configured[name];
    if (fromEnv !== undefined) {
      resolved[name] = fromEnv;
      continue;
    }
    const kept = stored[name];
    if (kept !== undefined) {
      try {
        checkSecret(name, kept);
      } catch (error) {
        throw new StartupError(`${path} holds an invalid ${name}: ${(error as ConfigError).message}`);
      }
      resolved[name] = kept;
      continue;
    }
    const fresh = random(32).toString('base64url');
    resolved[name] = fresh;
    stored[name] = fresh;
    generated.push(name);
  }
  if (resolved.JWT_SECRET === resolved.JWT_GATEWAY_SECRET) {
    throw new StartupError('JWT_GATEWAY_SECRET must differ from JWT_SECRET');
  }
  if (generated.length > 0) {
    await writeAtomically(path, `${JSON.stringify(stored, null, 2)}\n`);
    await reportGenerated(dataDir, path, generated, logger);
  }
  return resolved as Secrets;
}

/**
 * Generating is expected on the first start only. When a database is already there, the secrets it
 * was used with came from the environment or a lost secrets.json: say plainly what stops working.
 */
async function reportGenerated(
  dataDir: string,
  path: string,
  generated: SecretName[],
  logger: Logger,
): Promise<void> {
  const existing = await access(join(dataDir, DATABASE_FILE)).then(
    () => true,
    () => false,
  );
  if (!existing) {
    logger.info({ path, generated }, `generated ${generated.join(', ')} and kept them in ${path}`);
    return;
  }
  logger.warn(
    { path, generated },
    `generated new ${generated.join(', ')} for an existing database: sessions, invite, reset and service-account tokens and stored credential secrets made with the earlier values no longer work; set the earlier values in the environment or restore ${path} to keep them`,
  );
}

async function readStored(path: string, logger: Logger): Promise<Partial<Record<SecretName, string>>> {
  let text: string;
  try {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0) {
      logger.warn(
        { path, mode: (info.mode & 0o777).toString(8) },
        `${path} was readable by others; reset to 0600`,
      );
      await chmod(path, 0o600);
    }
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    throw new StartupError(`cannot read ${path} (${code ?? 'error'}); fix its permissions or restore it`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StartupError(`${path} is not valid JSON; restore it from a backup (it is never regenerated)`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new StartupError(`${path} must hold a JSON object keyed by secret name`);
  }
  const entries = Object.entries(parsed as Record<string, unknown>);
  for (const [key, value] of entries) {
    if (typeof value !== 'string') throw new StartupError(`${path}: ${key} must be a string`);
  }
  return Object.fromEntries(entries) as Partial<Record<SecretName, string>>;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, path);
}
