// The `towpath` command. Each command is one entry of COMMANDS (server/cli/*); this file parses the
// command word, maps errors to exit codes in one place and prints them as one clear line. Commands
// are loaded when used: `towpath estop` must not wait for the core's modules to load.

import { type CliIo, type Command, UsageError } from './cli/io.ts';
import { VERSION } from './version.ts';

export type { CliIo } from './cli/io.ts';

const winding = () => import('./cli/winding.ts');
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./cli/serve.ts')).serve,
  plan: async () => (await winding()).plan,
  validate: async () => (await winding()).validate,
  simulate: async () => (await winding()).simulate,
  stream: async () => (await import('./cli/stream.ts')).stream,
  estop: async () => (await import('./cli/estop.ts')).estop,
};

async function help(): Promise<string> {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = await Promise.all(
    Object.entries(COMMANDS).map(
      async ([name, load]) => `  ${name.padEnd(width)}  ${(await load()).summary}`,
    ),
  );
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
    io.stderr(await help());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(await help());
    return 0;
  }
  if (name === '--version') {
    io.stdout(`towpath ${VERSION}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    io.stderr(`towpath: unknown command '${name}' (try towpath --help)\n`);
    return 2;
  }
  const command = await load();
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
    const [{ windingExitCode }, { machineExitCode }, { ConfigError }, { StartupError }] = await Promise.all([
      winding(),
      import('./cli/stream.ts'),
      import('./config.ts'),
      import('./errors.ts'),
    ]);
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

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
