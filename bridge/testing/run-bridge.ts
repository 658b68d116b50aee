// Shared by the bridge's tests: run the CLI against a fake host and capture its output, as a real
// process (spec §10: CLI cases spawn the CLI) or, where a test must inject doctor's pause, in-process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';
import { type CliIo, main } from '../command-line.ts';
import { type BridgeEnv, readProcessEnv } from '../config.ts';
import type { FakeHost } from '../fake-host/server.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

// Homes made outside a test (in beforeAll) go when the test worker exits.
const homes: string[] = [];
process.once('exit', () => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A fresh folder for HOME, XDG_CONFIG_HOME and APPDATA so no real token or config is read. */
export function isolatedEnv(extra: BridgeEnv = {}): BridgeEnv {
  const home = mkdtempSync(join(tmpdir(), 'towpath-bridge-home-'));
  try {
    // Inside a test: gone once the test and its afterEach hooks (which close children) are done.
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  } catch {
    homes.push(home);
  }
  return { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), APPDATA: join(home, 'AppData'), ...extra };
}

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `node bridge/cli.ts …argv` with exactly `env` (plus the test's TZ): the process reads
 * its own environment, writes its own streams and sets its own exit code.
 */
export function cli(argv: string[], env: BridgeEnv): Promise<CliRun> {
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries({ TZ: readProcessEnv().TZ, ...env }))
    if (value !== undefined) childEnv[key] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bridge/cli.ts', ...argv], {
      cwd: REPO_ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === null) reject(new Error(`towpath-bridge ${argv.join(' ')} ended by ${signal}`));
      else resolve({ code, stdout, stderr });
    });
  });
}

/** main() in this process, with doctor's pause between passes set to 0 unless `io` says otherwise. */
export async function cliInProcess(
  argv: string[],
  env: BridgeEnv,
  io: Pick<CliIo, 'platform' | 'executable' | 'doctorPauseMs'> = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    doctorPauseMs: 0,
    ...io,
  });
  return { code, stdout, stderr };
}

/** The error line a failing CLI run writes first on stderr (spec §5.4). */
export function errorOf(run: CliRun): { code: string; message: string; details?: Record<string, unknown> } {
  const [first = ''] = run.stderr.split('\n');
  return (JSON.parse(first) as { error: { code: string; message: string } }).error;
}

/** A tools/call result as data, or as the bridge's error value when it is an error result (§5.4). */
export function toolOutcome(result: CallToolResult): {
  data?: Record<string, unknown>;
  content?: CallToolResult['content'];
  error?: { code: string; message: string; details?: Record<string, unknown> };
} {
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  if (result.isError) return { error: JSON.parse(text) };
  return { data: result.structuredContent, content: result.content };
}

/** Environment pointing the bridge at a fake host, with the token it wants (18.17+). */
export function hostEnv(host: Pick<FakeHost, 'url'>, token?: string, extra: BridgeEnv = {}): BridgeEnv {
  return isolatedEnv({ TASK_HOST_URL: host.url, ...(token ? { TASK_HOST_TOKEN: token } : {}), ...extra });
}

/** Connects the SDK's Client to `command args` (an MCP server over stdio), as assistants do. */
export async function connectMcp(command: string, args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({ command, args, env, cwd: REPO_ROOT, stderr: 'pipe' });
  const transportErrors: unknown[] = [];
  transport.onerror = (error) => transportErrors.push(error);
  const client = new Client({ name: 'towpath-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transportErrors };
}
