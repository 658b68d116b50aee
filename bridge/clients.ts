// print-config and configure (spec §8): the MCP client entry that starts `towpath-bridge mcp`,
// printed or merged into the client's own file without disturbing anything else in it.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type BridgeEnv, homeOf, userConfigDir } from './config.ts';
import { BridgeError, errorLine } from './errors.ts';
import { isObject } from './json.ts';

export const ENTRY = 'towpath-tasks';

interface ClientSpec {
  file(env: BridgeEnv, platform: NodeJS.Platform): string;
  /** The top-level key holding the servers, or undefined for Codex's TOML. */
  container?: 'mcpServers' | 'servers';
  typed: boolean;
}

export const CLIENTS = {
  'claude-desktop': {
    file: (env, platform) => join(userConfigDir(env, platform), 'Claude', 'claude_desktop_config.json'),
    container: 'mcpServers',
    typed: false,
  },
  'claude-code': { file: (env) => join(homeOf(env), '.claude.json'), container: 'mcpServers', typed: true },
  vscode: {
    file: (env, platform) => join(userConfigDir(env, platform), 'Code', 'User', 'mcp.json'),
    container: 'servers',
    typed: true,
  },
  codex: {
    file: (env) => join(env.CODEX_HOME || join(homeOf(env), '.codex'), 'config.toml'),
    typed: false,
  },
} satisfies Record<string, ClientSpec>;

export type ClientName = keyof typeof CLIENTS;

export interface ClientOptions {
  client: ClientName;
  command: string | undefined;
  executable: string | undefined;
  env: BridgeEnv;
  platform: NodeJS.Platform;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

function resolveCommand(options: ClientOptions): string {
  if (options.command !== undefined) return options.command;
  if (options.executable !== undefined) return options.executable;
  options.stderr(
    'note: not running as the packaged executable; the entry runs "towpath-bridge", which must be on PATH (or pass --command PATH)\n',
  );
  return 'towpath-bridge';
}

function jsonEntry(spec: ClientSpec, command: string): Record<string, unknown> {
  return spec.typed ? { type: 'stdio', command, args: ['mcp'] } : { command, args: ['mcp'] };
}

function tomlSection(command: string): string {
  // A JSON string is a valid TOML basic string for everything a path can hold.
  return `[mcp_servers.${ENTRY}]\ncommand = ${JSON.stringify(command)}\nargs = ["mcp"]\n`;
}

function snippet(spec: ClientSpec, command: string): string {
  if (!spec.container) return tomlSection(command);
  return `${JSON.stringify({ [spec.container]: { [ENTRY]: jsonEntry(spec, command) } }, null, 2)}\n`;
}

export function printClientConfig(options: ClientOptions): number {
  const spec: ClientSpec = CLIENTS[options.client];
  const command = resolveCommand(options);
  options.stdout(snippet(spec, command));
  options.stderr(`# add this to ${spec.file(options.env, options.platform)}\n`);
  return 0;
}

function refuse(options: ClientOptions, error: BridgeError, withSnippet?: string): number {
  options.stderr(errorLine(error));
  if (withSnippet) options.stderr(withSnippet);
  return 1;
}

function sameEntry(a: unknown, b: Record<string, unknown>): boolean {
  if (!isObject(a)) return false;
  return (
    a.command === b.command &&
    JSON.stringify(a.args) === JSON.stringify(b.args) &&
    (b.type === undefined || a.type === b.type)
  );
}

const TOML_HEADER = /^\s*\[\s*mcp_servers\.(?:towpath-tasks|"towpath-tasks")\s*\]\s*(#.*)?$/;
const ANY_HEADER = /^\s*\[/;

/** The entry's lines in a Codex config: [start, end) over the file's lines. */
function findTomlSection(lines: string[]): { start: number; end: number } | undefined {
  const start = lines.findIndex((line) => TOML_HEADER.test(line));
  if (start === -1) return undefined;
  let end = start + 1;
  while (end < lines.length && !ANY_HEADER.test(lines[end] ?? '')) end++;
  // Blank lines before the next table belong to the layout, not to our entry.
  while (end > start + 1 && (lines[end - 1] ?? '').trim() === '') end--;
  return { start, end };
}

function tomlValue(lines: string[], key: string): unknown {
  const pattern = new RegExp(`^\\s*${key}\\s*=\\s*(.+?)\\s*$`);
  for (const line of lines) {
    const match = pattern.exec(line);
    if (match?.[1] === undefined) continue;
    try {
      return JSON.parse(match[1]);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function writeAtomically(file: string, before: string | undefined, after: string) {
  mkdirSync(dirname(file), { recursive: true });
  const now = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (now !== before)
    throw new BridgeError('APP_ERROR', `${file} changed while it was being configured; nothing was written`);
  if (before !== undefined) writeFileSync(`${file}.bak`, before);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, after);
  renameSync(temporary, file);
}

export function configureClient(options: ClientOptions & { force: boolean }): number {
  const spec: ClientSpec = CLIENTS[options.client];
  const file = spec.file(options.env, options.platform);
  const command = resolveCommand(options);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const different = () =>
    new BridgeError(
      'INVALID_INPUT',
      `An entry ${ENTRY} already exists in ${file} with different settings; use --force to replace it`,
    );
  let after: string;
  try {
    if (!spec.container) {
      const text = before ?? '';
      const lines = text.split('\n');
      const section = findTomlSection(lines);
      const wanted = tomlSection(command);
      if (!section) {
        const separator = text === '' ? '' : text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
        after = `${text}${separator}${wanted}`;
      } else {
        const body = lines.slice(section.start + 1, section.end);
        const same =
          tomlValue(body, 'command') === command && JSON.stringify(tomlValue(body, 'args')) === '["mcp"]';
        if (same) {
          options.stdout(`already configured ${options.client}: ${file}\n`);
          return 0;
        }
        if (!options.force) return refuse(options, different());
        const replaced = [
          ...lines.slice(0, section.start),
          ...wanted.trimEnd().split('\n'),
          ...lines.slice(section.end),
        ];
        after = replaced.join('\n');
      }
    } else {
      let config: Record<string, unknown> = {};
      if (before !== undefined) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(before);
        } catch {
          parsed = undefined;
        }
        const servers = isObject(parsed) ? parsed[spec.container] : undefined;
        if (!isObject(parsed) || (servers !== undefined && !isObject(servers)))
          return refuse(
            options,
            new BridgeError('INVALID_INPUT', `${file} is not a JSON object; it was left untouched`),
            snippet(spec, command),
          );
        config = parsed;
      }
      const entry = jsonEntry(spec, command);
      const servers = (config[spec.container] ?? {}) as Record<string, unknown>;
      if (ENTRY in servers) {
        if (sameEntry(servers[ENTRY], entry)) {
          options.stdout(`already configured ${options.client}: ${file}\n`);
          return 0;
        }
        if (!options.force) return refuse(options, different());
      }
      config = { ...config, [spec.container]: { ...servers, [ENTRY]: entry } };
      after = `${JSON.stringify(config, null, 2)}\n`;
    }
    writeAtomically(file, before, after);
  } catch (error) {
    if (error instanceof BridgeError) return refuse(options, error);
    return refuse(options, new BridgeError('APP_ERROR', `Could not write ${file}`));
  }
  options.stdout(`configured ${options.client}: ${file}\n`);
  return 0;
}
