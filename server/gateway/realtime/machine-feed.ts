// The `machine` datasource's value (dashboard document §3.3): the controller's status as dashboards
// see it, kept current from the machine process's events. Status only: nothing here can send
// anything to the controller, and commands, log lines, paths and program text never get in.
import type { MachineEvent, MachineState, MachineStatus } from '../../../engine/machine/types.ts';

export interface MachineStatusSource {
  status(): MachineStatus;
  subscribe(listener: (event: MachineEvent) => void): () => void;
}

export interface MachineValue {
  controllerState: MachineState;
  connection: 'disconnected' | 'connecting' | 'connected';
  connected: boolean;
  port: string | null;
  baudRate: number | null;
  firmware: string | null;
  jobState: 'none' | 'streaming' | 'paused' | 'completed' | 'cancelled' | 'error';
  jobName: string | null;
  linesSent: number;
  linesAcknowledged: number;
  linesTotal: number;
  percent: number | null;
  elapsedSeconds: number | null;
  remainingSeconds: number | null;
  layer: number | null;
  layerCount: number | null;
  layerType: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  updatedAt: string;
}

const JOB_STATES = new Set(['streaming', 'paused', 'completed', 'cancelled']);
const oneDecimal = (n: number) => Math.round(n * 10) / 10;

export class MachineFeed {
  #value: MachineValue;
  #lastError: { message: string; at: string } | null = null;
  #jobState: MachineValue['jobState'] = 'none';
  readonly #source: MachineStatusSource;
  readonly #listeners = new Set<(value: MachineValue) => void>();
  readonly #unsubscribe: () => void;
  readonly #clock: () => number;

  constructor(source: MachineStatusSource, clock: () => number = Date.now) {
    this.#source = source;
    this.#clock = clock;
    this.#value = this.#project();
    this.#unsubscribe = source.subscribe((event) => this.#onEvent(event));
  }

  get value(): MachineValue {
    return this.#value;
  }

  /** Calls `listener` with every changed value; returns the unsubscribe. */
  onChange(listener: (value: MachineValue) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#unsubscribe();
    this.#listeners.clear();
  }

  #onEvent(event: MachineEvent): void {
    if (event.type === 'log' || event.type === 'action' || event.type === 'waiting-for-user') return;
    const at = new Date(this.#clock()).toISOString();
    if (event.type === 'error') this.#lastError = { message: event.message, at };
    if (event.type === 'state') {
      if (event.state === 'error' && event.message) this.#lastError = { message: event.message, at };
      // A successful connect or a job start clears the last error (§3.3).
      if (event.state === 'ready' && this.#value.controllerState === 'connecting') this.#lastError = null;
      if (event.state === 'streaming' && this.#value.controllerState !== 'paused') this.#lastError = null;
    }
    const next = this.#project();
    const { updatedAt: _a, ...before } = this.#value;
    const { updatedAt: _b, ...after } = next;
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    this.#value = next;
    for (const listener of [...this.#listeners]) listener(next);
  }

  #project(): MachineValue {
    const status = this.#source.status();
    const state = status.state;
    const connection =
      state === 'idle' || state === 'error'
        ? 'disconnected'
        : state === 'connecting'
          ? 'connecting'
          : 'connected';
    const job = status.job;
    if (!job) this.#jobState = 'none';
    else if (JOB_STATES.has(state)) this.#jobState = state as MachineValue['jobState'];
    else if (state === 'error' && this.#jobState !== 'none') this.#jobState = 'error';
    const jobState = this.#jobState;
    const running = jobState === 'streaming' || jobState === 'paused';
    const known = connection !== 'disconnected';
    // The machine process reads the job's layer comments; a finished job keeps its last layer.
    const place = job && jobState !== 'none' ? job.place : undefined;
    return {
      controllerState: state,
      connection,
      connected: connection === 'connected',
      port: known ? status.port : null,
      baudRate: known ? status.baudRate : null,
      firmware: known ? (status.controller?.firmware ?? null) : null,
      jobState,
      // The name the job was started with, whoever started it.
      jobName: job && jobState !== 'none' ? (status.program?.name ?? null) : null,
      linesSent: job?.sent ?? 0,
      linesAcknowledged: job?.acknowledged ?? 0,
      linesTotal: job?.total ?? 0,
      percent:
        !job || jobState === 'none'
          ? null
          : job.total === 0
            ? jobState === 'completed'
              ? 100
              : 0
            : oneDecimal((job.acknowledged / job.total) * 100),
      elapsedSeconds: job && jobState !== 'none' ? oneDecimal(job.elapsed_s) : null,
      remainingSeconds: job && running && job.acknowledged > 0 ? Math.round(job.remaining_s) : null,
      layer: place?.layer ?? null,
      layerCount: place?.layers ?? null,
      layerType: place?.windType ?? null,
      lastError: this.#lastError?.message ?? null,
      lastErrorAt: this.#lastError?.at ?? null,
      updatedAt: new Date(this.#clock()).toISOString(),
    };
  }
}

export const MACHINE_MIN_INTERVAL_MS = 100;
export const MACHINE_RESEND_MS = 15_000;

/**
 * One `machine` subscription's delivery (gateway spec §8): the current value at once, then each
 * change at most every 100 ms (latest wins), and the unchanged value again every 15 s.
 */
export class MachineDelivery {
  readonly #target: { machineData(value: unknown, at: string): void };
  readonly #feed: MachineFeed;
  readonly #stop: () => void;
  readonly #resend: NodeJS.Timeout;
  #lastSentAt = 0;
  #pending: NodeJS.Timeout | undefined;

  constructor(target: { machineData(value: unknown, at: string): void }, feed: MachineFeed) {
    this.#target = target;
    this.#feed = feed;
    this.#resend = setInterval(() => this.#send(), MACHINE_RESEND_MS);
    this.#resend.unref();
    this.#send();
    this.#stop = feed.onChange(() => this.#changed());
  }

  #changed(): void {
    if (this.#pending) return;
    const wait = this.#lastSentAt + MACHINE_MIN_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      this.#send();
      return;
    }
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      this.#send();
    }, wait);
    this.#pending.unref();
  }

  #send(): void {
    this.#lastSentAt = Date.now();
    this.#resend.refresh();
    this.#target.machineData(this.#feed.value, new Date().toISOString());
  }

  close(): void {
    this.#stop();
    clearInterval(this.#resend);
    clearTimeout(this.#pending);
  }
}
