// Shared by the bridge's tests: run the CLI in-process against a fake host and capture its output.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { main } from './cli.ts';
import type { BridgeEnv } from './config.ts';
import type { FakeHost } from './fake-host/server.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fresh folder for HOME, XDG_CONFIG_HOME and APPDATA so no real token or config is read. */
export function isolatedEnv(extra: BridgeEnv = {}): BridgeEnv {
  const home = mkdtempSync(join(tmpdir(), 'towpath-bridge-home-'));
  return { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), APPDATA: join(home, 'AppData'), ...extra };
}

export async function cli(argv: string[], env: BridgeEnv): Promise<CliRun> {
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
  });
  return { code, stdout, stderr };
}

/** The error line a failing CLI run writes first on stderr (spec §5.4). */
export function errorOf(run: CliRun): { code: string; message: string; details?: Record<string, unknown> } {
  const [first = ''] = run.stderr.split('\n');
  return (JSON.parse(first) as { error: { code: string; message: string } }).error;
}

/** Environment pointing the bridge at a fake host, with the token it wants (18.17+). */
export function hostEnv(host: FakeHost, token?: string, extra: BridgeEnv = {}): BridgeEnv {
  return isolatedEnv({ TASK_HOST_URL: host.url, ...(token ? { TASK_HOST_TOKEN: token } : {}), ...extra });
}

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Connects the SDK's Client to `command args` (an MCP server over stdio), as assistants do. */
export async function connectMcp(command: string, args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({ command, args, env, cwd: REPO_ROOT, stderr: 'pipe' });
  const transportErrors: unknown[] = [];
  transport.onerror = (error) => transportErrors.push(error);
  const client = new Client({ name: 'towpath-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transportErrors };
}
