// `towpath-bridge`: the task bridge CLI (spec/task-bridge.md §6). This version has the command
// frame only; the operations arrive with the task-bridge issue.
import pkg from '../package.json' with { type: 'json' };

export interface BridgeIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const HELP = `towpath-bridge ${pkg.version}: the bridge between Towpath and the operator's task app

Usage: towpath-bridge <command> [<sub>] [<positional>] [flags]

No commands are available in this version of Towpath yet.

Options:
  -h, --help     show this help
  --version      print the version
`;

export function main(argv: string[], io: BridgeIo): number {
  const [command] = argv;
  if (command === undefined) {
    io.stderr(HELP);
    return 2;
  }
  if (command === '--help' || command === '-h') {
    io.stdout(HELP);
    return 0;
  }
  if (command === '--version') {
    io.stdout(`towpath-bridge ${pkg.version}\n`);
    return 0;
  }
  // Errors use the spec's CLI shape (§5.4): one JSON line on stderr, then a usage hint.
  const error = { code: 'UNKNOWN_OPERATION', message: `Unknown command: ${command}` };
  io.stderr(`${JSON.stringify({ error })}\nUsage: towpath-bridge --help\n`);
  return 2;
}

if (import.meta.main) {
  process.exitCode = main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
