// The one machine controller of a Towpath process: every path that moves the machine (the
// renderer's machine panel, `/stream/`, the CLI) goes through it, so there is one owner of the
// serial port and one job at a time.
import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { Clock } from '../../../engine/machine/clock.ts';
import { MachineStateError } from '../../../engine/machine/errors.ts';
import {
  BUSY_MESSAGE,
  DEFAULT_BAUD_RATE,
  type HostTimings,
  MarlinHost,
} from '../../../engine/machine/host.ts';
import { type Program, ProgramError, prepareProgram } from '../../../engine/machine/program.ts';
import type { TransportOpener } from '../../../engine/machine/transport.ts';
import type { JobOutcome, MachineEvent, MachineStatus } from '../../../engine/machine/types.ts';
import type { Logger } from '../../log.ts';
import { listSerialPorts, type SerialPortList } from './ports.ts';
import { openSerialPort } from './serial-transport.ts';

export interface MachineControllerOptions {
  logger?: Logger;
  /** How ports are opened; real serial ports unless a test says otherwise. */
  open?: TransportOpener;
  clock?: Clock;
  timings?: Partial<HostTimings>;
  listPorts?: () => Promise<SerialPortList>;
}

/**
 * A job's program: G-code text, or an absolute path to a G-code file (`shown` in messages; read as
 * Latin-1 unless `encoding` says otherwise, as for a job body spooled to a file).
 */
export type JobSource = { gcode: string } | { path: string; shown?: string; encoding?: BufferEncoding };

export interface DryRunResult {
  commands_streamed: number;
  total_commands: number;
  dry_run: true;
}

export class MachineController {
  readonly host: MarlinHost;
  private readonly logger: Logger | undefined;
  private readonly listPortsImpl: () => Promise<SerialPortList>;
  /** Held by stream() from the request to the end of its job, connect phase included. */
  private reserved = false;
  /** `seq` of the last event: answers carry it so a watcher can order them among the events. */
  lastSeq = 0;

  constructor(options: MachineControllerOptions = {}) {
    this.host = new MarlinHost({
      open: options.open ?? openSerialPort,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.timings ? { timings: options.timings } : {}),
    });
    this.logger = options.logger?.child({ part: 'machine' });
    this.listPortsImpl = options.listPorts ?? (() => listSerialPorts());
    this.host.subscribe((event) => {
      this.lastSeq = event.seq;
      this.log(event);
    });
  }

  status(): MachineStatus {
    return this.host.status();
  }

  subscribe(listener: (event: MachineEvent) => void): () => void {
    return this.host.subscribe(listener);
  }

  listPorts(): Promise<SerialPortList> {
    return this.listPortsImpl();
  }

  async connect(port: string, baudRate: number = DEFAULT_BAUD_RATE): Promise<MachineStatus> {
    this.ensureFree();
    return this.host.connect(port, baudRate);
  }

  async disconnect(): Promise<MachineStatus> {
    this.ensureFree();
    await this.host.disconnect();
    return this.status();
  }

  /** One manual command, framed; resolves with the controller's answer up to its `ok`. */
  send(command: string): Promise<string[]> {
    if (this.reserved && this.host.state !== 'paused') throw new MachineStateError(BUSY_MESSAGE);
    return this.host.send(command);
  }

  /** Starts a job on the open connection and returns once it runs; progress comes as events. */
  async startJob(source: JobSource): Promise<{ total: number }> {
    this.ensureFree();
    const program = await loadProgram(source);
    this.ensureFree();
    const job = this.host.startJob(program);
    return { total: job.total };
  }

  pause(): MachineStatus {
    this.host.pause();
    return this.status();
  }

  resume(): MachineStatus {
    this.host.resume();
    return this.status();
  }

  cancel(): MachineStatus {
    this.host.cancel();
    return this.status();
  }

  /**
   * Ends the job now without waiting for the line in flight (no `M112`); the port closes. Returns
   * the message the job ends with, or undefined when no job ran.
   */
  abort(): string | undefined {
    return this.host.abort();
  }

  /** `M112` now, out of band; false when no port was open to write it to. */
  emergencyStop(): boolean {
    return this.host.emergencyStop();
  }

  /** §6.5 dry run: the program is checked and counted; no port is opened. */
  async dryRun(source: JobSource): Promise<DryRunResult> {
    const { total } = await loadProgram(source);
    return { commands_streamed: total, total_commands: total, dry_run: true };
  }

  /**
   * Streams a whole program and resolves when the job ends (spec §7.4's `/stream/` and the CLI). If
   * not connected it connects to `port` first and disconnects at the end; connected to the same
   * port and idle, it uses that connection and leaves it open. `onStarted` runs once the job runs.
   */
  async stream(
    program: Program,
    port: string,
    baudRate: number = DEFAULT_BAUD_RATE,
    onStarted?: () => void,
  ): Promise<JobOutcome> {
    if (program.total === 0) throw new ProgramError('G-code program contained no commands');
    this.ensureFree();
    const { state, port: connectedTo } = this.host.status();
    const connected = state === 'ready' || state === 'completed' || state === 'cancelled';
    if (connected && connectedTo !== port) {
      throw new MachineStateError(`Machine is connected to ${connectedTo}; disconnect it first`);
    }
    this.reserved = true;
    let opened = false;
    try {
      if (!connected) {
        await this.host.connect(port, baudRate);
        opened = true;
      }
      const job = this.host.startJob(program);
      onStarted?.();
      return await job.done;
    } finally {
      const after = this.host.state;
      if (opened && (after === 'completed' || after === 'cancelled' || after === 'ready')) {
        await this.host.disconnect().catch(() => {});
      }
      this.reserved = false;
    }
  }

  /** Shutting down: a running job is cancelled at the next line boundary, then the port closes. */
  close(): Promise<void> {
    return this.host.close();
  }

  private ensureFree() {
    const state = this.host.state;
    if (this.reserved || state === 'streaming' || state === 'paused')
      throw new MachineStateError(BUSY_MESSAGE);
  }

  private log(event: MachineEvent) {
    if (!this.logger) return;
    if (event.type === 'state')
      this.logger.info({ state: event.state, message: event.message }, 'machine state');
    else if (event.type === 'error') this.logger.warn({ message: event.message }, 'machine error');
    else if (event.type === 'complete') this.logger.info({ ...event }, 'job complete');
  }
}

/** The program of a job source; file problems are ProgramErrors (the request's fault). */
export async function loadProgram(source: JobSource): Promise<Program> {
  if ('gcode' in source) return prepareProgram(source.gcode);
  const { path } = source;
  const shown = source.shown ?? path;
  if (!isAbsolute(path)) throw new ProgramError(`Path must be absolute: '${shown}'`);
  let text: string;
  try {
    // Latin-1 keeps one character per byte, so a non-ASCII byte in a command is refused by §6.1
    // and one in a comment is harmless.
    text = await readFile(path, source.encoding ?? 'latin1');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ProgramError(`No file found at ${shown}`);
    throw new ProgramError(`Could not read G-code at ${shown}: ${(error as Error).message}`);
  }
  return prepareProgram(text);
}
