// The `towpath` command. Each command is one entry of COMMANDS; later issues add plan, validate,
// simulate and stream beside serve.
import { ConfigError, type Env, loadConfig } from './config.ts';
import { StartupError } from './errors.ts';
import { startWorkstation } from './main.ts';
import { VERSION } from './version.ts';

/** Where a command writes and how it learns about the process; injectable for tests. */
export interface CliIo {
  /** Environment to configure from; the process environment when absent. */
  env?: Env;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Registers a handler for SIGINT/SIGTERM; returns a function that removes it. */
  onStopSignal: (handler: (signal: string) => void) => () => void;
}

interface Command {
  summary: string;
  usage: string;
  /** Resolves with the exit code once the command is finished. */
  run: (args: string[], io: CliIo) => Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'run the headless core (LAN door and winding door) until Ctrl-C',
    usage: 'towpath serve',
    run: serve,
  },
};

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
    'Options: --help, --version. Configuration comes from the environment (see README.md).',
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
    if (error instanceof ConfigError || error instanceof StartupError) {
      io.stderr(`towpath: ${error.message}\n`);
      return 1;
    }
    io.stderr(`towpath: unexpected error: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}

async function serve(args: string[], io: CliIo): Promise<number> {
  if (args.length > 0) {
    io.stderr(
      `towpath: serve takes no arguments (got '${args[0]}'); configure it with environment variables\n`,
    );
    return 2;
  }
  const config = loadConfig(io.env);
  const workstation = await startWorkstation(config);
  io.stderr(
    `Towpath ${VERSION} is running. Open ${workstation.urls.lan}/ ` +
      `(winding door ${workstation.urls.winding}). Press Ctrl-C to stop.\n`,
  );
  await new Promise<void>((resolve) => {
    const remove = io.onStopSignal((signal) => {
      remove();
      workstation.logger.info({ signal }, 'stopping');
      workstation.stop().then(resolve, resolve);
    });
  });
  return 0;
}

function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
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
