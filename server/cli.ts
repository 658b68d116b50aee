// The `towpath` command. Each command is one entry of COMMANDS (server/cli/*); this file parses the
// command word, maps errors to exit codes in one place and prints them as one clear line.

import { type CliIo, type Command, UsageError } from './cli/io.ts';
import { serve } from './cli/serve.ts';
import { machineExitCode, stream } from './cli/stream.ts';
import { plan, simulate, validate, windingExitCode } from './cli/winding.ts';
import { ConfigError } from './config.ts';
import { StartupError } from './errors.ts';
import { processExists } from './process-exists.ts';
import { VERSION } from './version.ts';

export type { CliIo } from './cli/io.ts';

const COMMANDS: Record<string, Command> = { serve, plan, validate, simulate, stream };

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    `towpath ${VERSION}: desktop workstation for filament-winding machines`,
    '',
    'Usage: towpath <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Options: --help, --version; 'towpath <command> --help' shows a command's options.",
    'Configuration comes from the environment (see README.md).',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined) {
    io.stderr(help());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(help());
    return 0;
  }
  if (name === '--version') {
    io.stdout(`towpath ${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`towpath: unknown command '${name}' (try towpath --help)\n`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`Usage: ${command.usage}\n\n${command.summary}\n`);
    return 0;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`towpath ${name}: ${error.message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    const message = (error as Error)?.message ?? String(error);
    const windingCode = windingExitCode(error) ?? machineExitCode(error);
    if (windingCode !== undefined) {
      io.stderr(`towpath: ${message}\n`);
      return windingCode;
    }
    if (error instanceof ConfigError || error instanceof StartupError) {
      io.stderr(`towpath: ${message}\n`);
      return 1;
    }
    io.stderr(`towpath: unexpected error: ${message}\n`);
    return 1;
  }
}

function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    // A bar only when a person watches: with either stream piped or redirected, none is drawn.
    progress: process.stdout.isTTY ? process.stderr : undefined,
    onParentExit: watchParent,
    onStopSignal: (handler) => {
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
  };
}

/** How often the parent process is looked for. */
const PARENT_POLL_MS = 1000;

/**
 * Calls `handler` once the process that started this one is gone: it then has a new parent (init
 * or a subreaper) or none at all. A process started by init itself (a service) has no parent to
 * lose, so nothing is watched.
 */
function watchParent(handler: () => void): () => void {
  const parent = process.ppid;
  if (parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (process.ppid === parent && processExists(parent)) return;
    clearInterval(timer);
    handler();
  }, PARENT_POLL_MS);
  // Never the reason the process stays alive.
  timer.unref();
  return () => clearInterval(timer);
}

/** After a command has answered, anything still open (a closing socket, a port) gets this long. */
const EXIT_GRACE_MS = 250;

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
}
