import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { runNode } from '../server/testing/process.ts';

describe('towpath-bridge', () => {
  it('prints help on stdout for --help and on stderr (exit 2) without arguments', async () => {
    const help = await runNode('bridge/cli.ts', ['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: towpath-bridge <command>');

    const bare = await runNode('bridge/cli.ts', []);
    expect(bare).toMatchObject({ code: 2, stdout: '' });
    expect(bare.stderr).toContain('Usage: towpath-bridge <command>');
  });

  it('prints its version', async () => {
    expect(await runNode('bridge/cli.ts', ['--version'])).toMatchObject({
      code: 0,
      stdout: `towpath-bridge ${pkg.version}\n`,
    });
  });

  it('answers an unknown command with the spec error line and exit 2', async () => {
    const result = await runNode('bridge/cli.ts', ['tasks', 'list']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const [first] = result.stderr.split('\n');
    expect(JSON.parse(first ?? '')).toEqual({
      error: { code: 'UNKNOWN_OPERATION', message: 'Unknown command: tasks' },
    });
  });
});
