// The machine process's last 1,000 events, kept in `<data dir>/machine-events.jsonl` (one JSON
// object a line, oldest first, each with its wall-clock time; a run of progress events counts as
// one, its latest). Written whole at most once a second and at exit, not per event: a job logs
// hundreds of lines a second and the event loop is the e-stop's. After a crash the file holds what
// happened up to a second before it. An event is only kept as it comes (it is serialised when the
// file is written): a job's progress event comes between one line's `ok` and the next line's
// write, so whatever is done there slows the job.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MachineEvent } from '../../../engine/machine/types.ts';

export const EVENT_LOG_FILE = 'machine-events.jsonl';
export const EVENT_LOG_SIZE = 1000;
const FLUSH_MS = 1000;

export class EventLog {
  readonly path: string;
  /** Oldest first; up to twice the size before the oldest are dropped (in one splice, not per event). */
  #entries: { time: number; event: MachineEvent }[] = [];
  #dirty = false;
  #writing: Promise<void> | undefined;
  readonly #timer: NodeJS.Timeout;
  #closed = false;

  constructor(dataDir: string) {
    this.path = join(dataDir, EVENT_LOG_FILE);
    this.#timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.#timer.unref();
  }

  push(event: MachineEvent) {
    // Progress is a snapshot: a job's next one replaces it where it stands, so the log keeps what
    // happened (states, errors, resends, actions) and where each job got to, not the last 1,000
    // of its lines. It also costs no new entry and no larger write on every line.
    const last = this.#entries.at(-1);
    if (last && event.type === 'progress' && last.event.type === 'progress') {
      last.time = Date.now();
      last.event = event;
      this.#dirty = true;
      return;
    }
    this.#entries.push({ time: Date.now(), event });
    if (this.#entries.length >= 2 * EVENT_LOG_SIZE) this.#entries = this.#entries.slice(-EVENT_LOG_SIZE);
    this.#dirty = true;
  }

  #text() {
    const last = this.#entries.slice(-EVENT_LOG_SIZE);
    return last
      .map(({ time, event }) => `${JSON.stringify({ time: new Date(time).toISOString(), ...event })}\n`)
      .join('');
  }

  /** Writes the file if anything changed (never two writes at once). */
  async flush(): Promise<void> {
    if (this.#closed || !this.#dirty || this.#writing) return this.#writing;
    this.#dirty = false;
    const temporary = `${this.path}.${randomBytes(4).toString('hex')}`;
    this.#writing = writeFile(temporary, this.#text(), { mode: 0o600 })
      .then(() => rename(temporary, this.path))
      .catch(() => {})
      .finally(() => {
        this.#writing = undefined;
      });
    return this.#writing;
  }

  /**
   * At a planned exit: waits for a periodic write in progress (its rename landing after the final
   * write would put back an older file), then writes the last events.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#writing;
    this.closeNow();
  }

  /** When the process is failing and cannot wait: the last events, synchronously. */
  closeNow() {
    this.#closed = true;
    clearInterval(this.#timer);
    try {
      writeFileSync(this.path, this.#text(), { mode: 0o600 });
    } catch {}
  }
}
