// `towpath-bridge`: the task bridge's command line (spec §6), run by bridge/cli.ts and by the
// sidecar executable. `main` takes its arguments, writers and environment so tests can run it
// in-process.
// Start-up time is most of a CLI run: doctor, the client configuration and the MCP server are
// loaded only by the commands that need them.
import type { ClientName } from './clients.ts';
import { type BridgeEnv, type HostSettings, parseHostSettings, readProcessEnv } from './config.ts';
import { parseIsoTime } from './dates.ts';
import { parseDuration } from './durations.ts';
import { BridgeError, errorLine, invalidField, toBridgeError } from './errors.ts';
import { type Format, type Printable, render } from './format.ts';
import { HostClient } from './host.ts';
import { truncationNote } from './lists.ts';
import type { McpOptions } from './mcp.ts';
import { DELETE_REFUSAL, OPERATIONS, type Operation, runOperation } from './operations.ts';
import { VERSION } from './version.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: BridgeEnv;
  platform?: NodeJS.Platform;
  /** doctor's pause between its two passes (§7 rule 5); tests use 0. */
  doctorPauseMs?: number;
  /** The absolute path of the running single executable, when running as one (§8). */
  executable?: string | undefined;
  /** Tools `mcp` serves after the 16: the sidecar's combined entry (server/mcp/) passes them in. */
  mcpExtraTools?: McpOptions['extraTools'];
}

/** The keys of CLIENTS in clients.ts (a test keeps them equal), named here to keep that module lazy. */
export const CLIENT_NAMES: readonly string[] = ['claude-desktop', 'claude-code', 'vscode', 'codex'];

const HELP = `towpath-bridge ${VERSION}: the bridge between Towpath and the operator's task app

Usage: towpath-bridge <command> [<sub>] [<positional>] [flags]

Commands:
  tasks list            [--query Q] [--project-id ID] [--tag-id ID] [--include-done]
                        [--source active|archived|all] [--limit N] [--offset N] [--full]
  tasks get <id>        tasks complete <id>     tasks uncomplete <id>
  tasks start <id>      tasks stop-current      tasks current
  tasks set-current <id>                        tasks archive <id>      tasks restore <id>
  tasks add <title>     [--notes T] [--project-id ID] [--tag-id ID]... [--parent-id ID]
                        [--planned-at MS|ISO] [--due-day YYYY-MM-DD|none]
                        [--due-with-time MS|ISO|none] [--done] [--time-estimate D] [--time-spent D]
  tasks update <id>     as add without --parent-id, plus [--title T] [--not-done]
  projects list, tags list   [--query Q] [--limit N] [--offset N] [--full]
  status, health        check the task app
  doctor [--deep] [--json]   diagnose the connection (and the task store with --deep)
  print-config <client> [--command PATH]
  configure <client>    [--command PATH] [--force]   clients: ${CLIENT_NAMES.join(', ')}
  mcp                   serve the tools over MCP on stdio

Output: --format json (default) | table | ids, after tasks, projects, tags, status, health.
Durations: milliseconds or 1d2h30m5s. Environment: TASK_HOST_URL, TASK_HOST_TOKEN, TASK_HOST_TIMEOUT_MS.

Options:
  -h, --help     show this help
  --version      print the version
`;

const BOOLEAN_FLAGS = new Set(['include-done', 'full', 'done', 'not-done', 'deep', 'json', 'force']);
const FORMAT_COMMANDS = new Set(['health', 'status', 'tasks', 'projects', 'tags']);

class UsageError extends BridgeError {}

function usage(message: string, path = 'arguments'): UsageError {
  return new UsageError('INVALID_INPUT', message, { issues: [{ path, message }] });
}

interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string[]>;
}

/** Splits flags from positionals: `--name value`, `--name=value`, booleans without a value, `--`. */
function parseFlags(args: string[], allowed: ReadonlySet<string>): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) throw usage(`Unknown flag: ${arg}`, arg);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!allowed.has(name)) throw usage(`Unknown flag: --${name}`, name);
    let value: string;
    if (BOOLEAN_FLAGS.has(name)) {
      if (eq !== -1) throw usage(`--${name} takes no value`, name);
      value = 'true';
    } else if (eq !== -1) value = arg.slice(eq + 1);
    else {
      const next = args[i + 1];
      if (next === undefined) throw usage(`--${name} needs a value`, name);
      value = next;
      i++;
    }
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { positionals, flags };
}

const last = (values: string[] | undefined) => values?.[values.length - 1];

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Turns CLI flag text into the operation's JSON input; the operation's schema then judges it. */
function inputFromFlags(op: Operation, parsed: ParsedArgs): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const [positional] = parsed.positionals;
  if (op.positional) {
    if (positional === undefined) throw usage(`Missing <${op.positional}>`, op.positional);
    input[op.tool === 'set_current_task' ? 'taskId' : op.positional] = positional;
  }
  if (parsed.positionals.length > (op.positional ? 1 : 0))
    throw usage(`Unexpected argument: ${parsed.positionals[op.positional ? 1 : 0]}`);
  const isTaskWrite = op.tool === 'create_task' || op.tool === 'update_task';
  if (parsed.flags.has('done') && parsed.flags.has('not-done'))
    throw invalidField('isDone', '--done and --not-done exclude each other');
  for (const [flag, values] of parsed.flags) {
    const value = last(values) ?? '';
    switch (flag) {
      case 'format':
        break;
      case 'limit':
      case 'offset':
        input[flag] = /^[0-9]+$/.test(value) ? Number(value) : value;
        break;
      case 'include-done':
      case 'full':
        input[camel(flag)] = true;
        break;
      case 'done':
        input.isDone = true;
        break;
      case 'not-done':
        input.isDone = false;
        break;
      case 'tag-id':
        if (isTaskWrite) input.tagIds = values;
        else input.tagId = value;
        break;
      case 'time-estimate':
      case 'time-spent': {
        const ms = parseDuration(value);
        if (ms === undefined)
          throw invalidField(camel(flag), 'must be milliseconds or a duration like 1h30m');
        input[camel(flag)] = ms;
        break;
      }
      case 'planned-at':
        input.plannedAt = /^[0-9]+$/.test(value) ? Number(value) : value;
        break;
      case 'due-day':
        input.dueDay = value === 'none' ? null : value;
        break;
      case 'due-with-time': {
        if (value === 'none') input.dueWithTime = null;
        else if (/^[0-9]+$/.test(value)) input.dueWithTime = Number(value);
        else {
          const ms = parseIsoTime(value);
          if (ms === undefined)
            throw invalidField('dueWithTime', 'must be milliseconds, an ISO date or none');
          input.dueWithTime = ms;
        }
        break;
      }
      default:
        input[camel(flag)] = value;
    }
  }
  return input;
}

function chooseFormat(op: Operation, parsed: ParsedArgs): Format {
  const format = last(parsed.flags.get('format')) ?? 'json';
  if (format !== 'json' && format !== 'table' && format !== 'ids')
    throw usage(`Unknown format: ${format} (json, table or ids)`, 'format');
  if (format === 'ids' && (op.tool === 'health' || op.tool === 'get_status'))
    throw usage(`--format ids does not apply to ${op.command.join(' ')}`, 'format');
  if (format !== 'json' && parsed.flags.has('full'))
    throw usage('--full prints whole entities and needs --format json', 'full');
  return format;
}

function writeError(io: CliIo, error: BridgeError, withUsage: boolean) {
  io.stderr(`${errorLine(error)}${withUsage ? 'Usage: towpath-bridge --help\n' : ''}`);
}

async function runCommand(op: Operation, rest: string[], io: CliIo): Promise<number> {
  const allowed = new Set([...op.flags, ...(FORMAT_COMMANDS.has(op.command[0] ?? '') ? ['format'] : [])]);
  let client: HostClient | undefined;
  try {
    const parsed = parseFlags(rest, allowed);
    const input = inputFromFlags(op, parsed);
    const format = chooseFormat(op, parsed);
    const settings: HostSettings = parseHostSettings(io.env);
    client = new HostClient(settings, io.env, io.platform ? { platform: io.platform } : {});
    const result = await runOperation(op, input, { client });
    let printable: Printable;
    let note: string | undefined;
    if (result.kind === 'list') {
      printable = { kind: 'list', items: result.page.items, entity: result.entity };
      if (result.page.truncated) note = truncationNote(result.page);
    } else printable = { kind: 'value', value: result.data };
    io.stdout(render(printable, format));
    if (note) io.stderr(`${note}\n`);
    return 0;
  } catch (caught) {
    const error = toBridgeError(caught);
    const attempted = (client?.requests ?? 0) > 0;
    writeError(io, error, error instanceof UsageError);
    return attempted ? 1 : 2;
  }
}

async function clientCommand(words: string[], rest: string[], io: CliIo): Promise<number> {
  const [command] = words;
  const configure = command === 'configure';
  try {
    const parsed = parseFlags(rest, new Set(configure ? ['command', 'force'] : ['command']));
    const [client, extra] = parsed.positionals;
    if (client === undefined) throw usage('Missing <client>', 'client');
    if (extra !== undefined) throw usage(`Unexpected argument: ${extra}`);
    if (!CLIENT_NAMES.includes(client))
      throw usage(`Unknown client: ${client} (${CLIENT_NAMES.join(', ')})`, 'client');
    const { configureClient, printClientConfig } = await import('./clients.ts');
    const options = {
      client: client as ClientName,
      command: last(parsed.flags.get('command')),
      executable: io.executable,
      env: io.env,
      platform: io.platform ?? process.platform,
      stdout: io.stdout,
      stderr: io.stderr,
    };
    if (!configure) return printClientConfig(options);
    return configureClient({ ...options, force: parsed.flags.has('force') });
  } catch (caught) {
    const error = toBridgeError(caught);
    writeError(io, error, error instanceof UsageError);
    return 2;
  }
}

async function doctorCommand(rest: string[], io: CliIo): Promise<number> {
  let parsed: ParsedArgs;
  try {
    parsed = parseFlags(rest, new Set(['deep', 'json']));
    if (parsed.positionals.length > 0) throw usage(`Unexpected argument: ${parsed.positionals[0]}`);
  } catch (caught) {
    writeError(io, toBridgeError(caught), true);
    return 2;
  }
  const { runDoctor } = await import('./doctor.ts');
  return runDoctor({
    env: io.env,
    platform: io.platform ?? process.platform,
    deep: parsed.flags.has('deep') || parsed.flags.has('json'),
    json: parsed.flags.has('json'),
    pauseMs: io.doctorPauseMs ?? 500,
    stdout: io.stdout,
    stderr: io.stderr,
  });
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [first] = argv;
  if (first === undefined) {
    io.stderr(HELP);
    return 2;
  }
  const beforeDashes = argv.indexOf('--') === -1 ? argv : argv.slice(0, argv.indexOf('--'));
  if (beforeDashes.includes('--help') || beforeDashes.includes('-h')) {
    io.stdout(HELP);
    return 0;
  }
  if (first === '--version') {
    io.stdout(`towpath-bridge ${VERSION}\n`);
    return 0;
  }
  if (first === 'doctor') return doctorCommand(argv.slice(1), io);
  if (first === 'print-config' || first === 'configure') return clientCommand([first], argv.slice(1), io);
  if (first === 'mcp') {
    if (argv.length > 1) {
      writeError(io, usage(`Unexpected argument: ${argv[1]}`), true);
      return 2;
    }
    // Loaded on demand: the MCP SDK would double the start-up time of every other command.
    const { runMcpServer } = await import('./mcp.ts');
    return runMcpServer({ env: io.env, stderr: io.stderr, extraTools: io.mcpExtraTools });
  }
  if (first === 'tasks' && argv[1] === 'delete') {
    writeError(io, new BridgeError('UNSUPPORTED_OPERATION', DELETE_REFUSAL), false);
    return 2;
  }
  const op = OPERATIONS.find((candidate) => candidate.command.every((word, i) => argv[i] === word));
  if (!op) {
    const words = first === 'tasks' || first === 'projects' || first === 'tags' ? argv.slice(0, 2) : [first];
    writeError(io, new BridgeError('UNKNOWN_OPERATION', `Unknown command: ${words.join(' ')}`), true);
    return 2;
  }
  return runCommand(op, argv.slice(op.command.length), io);
}

/**
 * Runs the CLI on this process's arguments and streams; the sidecar sets `executable` and passes
 * the workstation's MCP tools.
 */
export function runProcess(executable?: string, mcpExtraTools?: McpOptions['extraTools']): void {
  // No top-level await: the sidecar bundle is CommonJS.
  void main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: readProcessEnv(),
    executable,
    mcpExtraTools,
  }).then((code) => {
    process.exitCode = code;
  });
}
