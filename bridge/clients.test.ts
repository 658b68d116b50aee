// print-config and configure (spec §8) against temporary home folders.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENTS } from './clients.ts';
import { CLIENT_NAMES } from './command-line.ts';
import type { BridgeEnv } from './config.ts';
import { cliInProcess, errorOf, isolatedEnv } from './testing/run-bridge.ts';

function run(argv: string[], env: BridgeEnv, executable?: string) {
  return cliInProcess(argv, { ...env, TASK_HOST_TOKEN: 'never-written' }, { platform: 'linux', executable });
}

describe('print-config', () => {
  it('knows the same clients as the help text and usage errors', () => {
    expect(CLIENT_NAMES).toEqual(Object.keys(CLIENTS));
  });

  it('prints each client snippet and its file; the executable path when packaged', async () => {
    const env = isolatedEnv({ CODEX_HOME: '/tmp/codex-home' });
    const home = env.HOME ?? '';
    const expected = {
      'claude-desktop': [
        { mcpServers: { 'towpath-tasks': { command: '/opt/tb', args: ['mcp'] } } },
        join(home, '.config/Claude/claude_desktop_config.json'),
      ],
      'claude-code': [
        { mcpServers: { 'towpath-tasks': { type: 'stdio', command: '/opt/tb', args: ['mcp'] } } },
        join(home, '.claude.json'),
      ],
      vscode: [
        { servers: { 'towpath-tasks': { type: 'stdio', command: '/opt/tb', args: ['mcp'] } } },
        join(home, '.config/Code/User/mcp.json'),
      ],
    } as const;
    for (const [client, [snippet, file]] of Object.entries(expected)) {
      const out = await run(['print-config', client, '--command', '/opt/tb'], env);
      expect(out.code).toBe(0);
      expect(out.stdout).toBe(`${JSON.stringify(snippet, null, 2)}\n`);
      expect(out.stderr).toBe(`# add this to ${file}\n`);
    }
    const codex = await run(['print-config', 'codex'], env, '/opt/sidecar/towpath-bridge');
    expect(codex.stdout).toBe(
      '[mcp_servers.towpath-tasks]\ncommand = "/opt/sidecar/towpath-bridge"\nargs = ["mcp"]\n',
    );
    expect(codex.stderr).toBe('# add this to /tmp/codex-home/config.toml\n');
    const plain = await run(['print-config', 'vscode'], env);
    expect(plain.stdout).toContain('"command": "towpath-bridge"');
    expect(plain.stderr).toMatch(/^note: /);
    for (const argv of [
      ['print-config', 'vscode', '--format', 'json'],
      ['print-config', 'emacs'],
      ['print-config'],
      ['configure', 'vscode', 'x'],
    ])
      expect((await run(argv, env)).code, argv.join(' ')).toBe(2);
    expect(existsSync(join(home, '.config'))).toBe(false);
  });
});

describe('configure', () => {
  it('creates, keeps other keys, leaves identical entries alone, refuses different ones unless --force', async () => {
    const env = isolatedEnv();
    const file = join(env.HOME ?? '', '.claude.json');
    const created = await run(['configure', 'claude-code', '--command', '/a'], env);
    expect(created).toMatchObject({ code: 0, stdout: `configured claude-code: ${file}\n` });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      mcpServers: { 'towpath-tasks': { type: 'stdio', command: '/a', args: ['mcp'] } },
    });

    writeFileSync(
      file,
      JSON.stringify({
        theme: 'dark',
        mcpServers: {
          other: { command: 'x' },
          'towpath-tasks': { type: 'stdio', command: '/a', args: ['mcp'] },
        },
      }),
    );
    const before = readFileSync(file, 'utf8');
    const same = await run(['configure', 'claude-code', '--command', '/a'], env);
    expect(same).toMatchObject({ code: 0, stdout: `already configured claude-code: ${file}\n` });
    expect(readFileSync(file, 'utf8')).toBe(before);

    const different = await run(['configure', 'claude-code', '--command', '/b'], env);
    expect(different.code).toBe(1);
    expect(errorOf(different)).toEqual({
      code: 'INVALID_INPUT',
      message: `An entry towpath-tasks already exists in ${file} with different settings; use --force to replace it`,
    });
    expect(readFileSync(file, 'utf8')).toBe(before);

    const forced = await run(['configure', 'claude-code', '--command', '/b', '--force'], env);
    expect(forced.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      theme: 'dark',
      mcpServers: {
        other: { command: 'x' },
        'towpath-tasks': { type: 'stdio', command: '/b', args: ['mcp'] },
      },
    });
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(before);
    expect(readFileSync(file, 'utf8')).not.toContain('never-written');
  });

  it('leaves a file that is not a JSON object untouched and exits 1 with the snippet', async () => {
    const env = isolatedEnv();
    const file = join(env.XDG_CONFIG_HOME ?? '', 'Code/User/mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    for (const text of ['{ "servers": { // comment\n } }', '[1]']) {
      writeFileSync(file, text);
      const out = await run(['configure', 'vscode', '--command', '/a'], env);
      expect(out.code).toBe(1);
      expect(out.stdout).toBe('');
      expect(out.stderr).toContain('"towpath-tasks"');
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('edits the Codex TOML leaving every other line intact', async () => {
    const env = isolatedEnv();
    const file = join(env.HOME ?? '', '.codex/config.toml');
    mkdirSync(dirname(file), { recursive: true });
    const original = 'model = "o3"  # keep me\n\n[mcp_servers.other]\ncommand = "x"\n';
    writeFileSync(file, original);
    expect((await run(['configure', 'codex', '--command', '/a'], env)).code).toBe(0);
    const added = readFileSync(file, 'utf8');
    expect(added).toBe(`${original}\n[mcp_servers.towpath-tasks]\ncommand = "/a"\nargs = ["mcp"]\n`);
    expect((await run(['configure', 'codex', '--command', '/a'], env)).stdout).toMatch(
      /^already configured codex/,
    );
    writeFileSync(file, `${added}\n[profiles.x]\nmodel = "y"\n`);
    expect((await run(['configure', 'codex', '--command', '/b'], env)).code).toBe(1);
    expect((await run(['configure', 'codex', '--command', '/b', '--force'], env)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(
      `${original}\n[mcp_servers.towpath-tasks]\ncommand = "/b"\nargs = ["mcp"]\n\n[profiles.x]\nmodel = "y"\n`,
    );
  });
});
