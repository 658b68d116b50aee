// The `towpath` command. Each command is one entry of COMMANDS: its help text lives here and its
// code (server/cli/*) is imported only when it runs, so `towpath plan` never loads the server
// (fastify, GraphQL, SQLite, serialport) and `towpath --help` loads nothing but this file.
// Errors map to exit codes in one place and print as one clear line.
import { loadFreshBundle } from '../../bridge/fresh-bundle.ts';
import { VERSION } from '../../bridge/version.ts';
import type { CliIo, Command } from './io.ts';

export type { CliIo } from './io.ts';

interface CommandEntry {
  summary: string;
  usage: string;
  load: () => Promise<Command>;
}

const COMMANDS: Record<string, CommandEntry> = {
  serve: {
    summary: 'run the headless core (LAN door and winding door) until Ctrl-C',
    usage: 'towpath serve',
    load: async () => (await import('./serve.ts')).serve,
  },
  plan: {
    summary: 'plan a .wind definition into G-code',
    usage: 'towpath plan <file.wind> [-o out.gcode] [--axis-format xab|xyz] [--verbose] [--json]',
    load: async () => (await windingCommands()).plan,
  },
  validate: {
    summary: 'check a .wind definition (schema and planning) without writing G-code',
    usage: 'towpath validate <file.wind> [--json]',
    load: async () => (await windingCommands()).validate,
  },
  simulate: {
    summary: 'simulate a G-code program: time, distance and tow',
    usage: 'towpath simulate <file.gcode> [--json]',
    load: async () => (await windingCommands()).simulate,
  },
  stream: {
    summary: 'stream a G-code program to the machine over a serial port',
    usage:
      'towpath stream <file.gcode> --port <path> [--baud 250000] [--timeout <s>] [--dry-run] [--json]\n' +
      '       [--resume-from <checkpoint|auto> [--tow-attached] [--acknowledged <n>] [--queue-depth 20]]',
    load: async () => {
      const { stream, machineExitCode } = await import('./stream.ts');
      return { ...stream, exitCode: machineExitCode };
    },
  },
  checkpoints: {
    summary: 'list where a stopped winding can resume: each layer and circuit start, with the machine state',
    usage: 'towpath checkpoints <file.wind|file.gcode> [--axis-format xab|xyz] [--json]',
    load: async () => (await import('./checkpoints.ts')).checkpoints,
  },
  estop: {
    summary: 'emergency stop: M112 to the machine at once, straight to the machine process',
    usage:
      'towpath estop [--json]   (exit 0: M112 sent; 1: no machine connected; 3: no machine process answering)',
    // Loads only the e-stop's own small modules: it must never wait on the core's.
    // A bundle when fresh: its start-up is the e-stop's latency.
    load: async () =>
      (
        ((await loadFreshBundle(ROOT, 'estop')) as typeof import('./estop.ts') | undefined) ??
        (await import('./estop.ts'))
      ).estop,
  },
};

type WindingCommands = typeof import('./winding.ts');

const ROOT = new URL('../../', import.meta.url);

async function windingCommands(): Promise<WindingCommands> {
  return ((await loadFreshBundle(ROOT, 'winding')) as WindingCommands) ?? import('./winding.ts');
}

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
    'Configuration comes from the environment (see docs/configuration.md).',
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
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.stderr(`towpath: unknown command '${name}' (try towpath --help)\n`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`Usage: ${entry.usage}\n\n${entry.summary}\n`);
    return 0;
  }
  const command = await entry.load();
  try {
    return await command.run(args, io);
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    // Known by name, not class: a bundled command has its own copies of cli/io.ts' classes.
    const kind = (error as Error)?.name;
    if (kind === 'UsageError') {
      io.stderr(`towpath ${name}: ${message}\nUsage: ${entry.usage}\n`);
      return 2;
    }
    const code = kind === 'FileProblem' ? 2 : command.exitCode?.(error);
    if (code === undefined) {
      io.stderr(`towpath: unexpected error: ${message}\n`);
      return 1;
    }
    io.stderr(`towpath: ${message}\n`);
    return code;
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
    // Unix gives an orphan a new parent; Windows keeps the old id, so ask whether it still exists
    // (EPERM: it does, as another user's). Written here rather than imported: `--help` loads no
    // module beyond the command table.
    let gone = process.ppid !== parent;
    try {
      if (!gone) process.kill(parent, 0);
    } catch (error) {
      gone = (error as NodeJS.ErrnoException).code !== 'EPERM';
    }
    if (!gone) return;
    clearInterval(timer);
    handler();
  }, PARENT_POLL_MS);
  // Never the reason the process stays alive.
  timer.unref();
  return () => clearInterval(timer);
}

/** After a command has answered, anything still open (a closing socket, a port) gets this long. */
const EXIT_GRACE_MS = 250;

/** Runs the command line of this process and exits once it has answered (server/cli.ts). */
export async function runProcess(): Promise<void> {
  // A reader that stops early (`towpath checkpoints … | head`) closes the pipe: what is left to
  // write has nowhere to go, which is no failure of the command and no reason for a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.exitCode = await main(process.argv.slice(2));
  exitSoon();
}

export function exitSoon(): void {
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
}
