// What a line from the controller means (spec/winding.md §6.2), and how bytes become lines.

export type Received =
  | { kind: 'action'; text: string }
  | { kind: 'resend'; line: number }
  | { kind: 'halt' }
  | { kind: 'line-error' }
  | { kind: 'fatal'; text: string }
  | { kind: 'keep-alive'; waitingForUser: boolean }
  /** `wait`: the controller's queue is empty. It says nothing about a line in flight. */
  | { kind: 'idle' }
  | { kind: 'ack' }
  | { kind: 'start' }
  | { kind: 'log' };

const HALT_MARKERS = [
  'kill()',
  'Printer halted',
  'Printer stopped',
  'system stopped',
  'Thermal Runaway',
  'Heating failed',
  'MAXTEMP',
  'MINTEMP',
];

const LINE_ERRORS = [
  'checksum mismatch',
  'No Checksum',
  'No Line Number',
  'Line Number is not Last Line Number+1',
];

/** Shared: a plain `ok` is most of what a controller says during a job, and carries nothing. */
const ACK: Received = Object.freeze({ kind: 'ack' });

/** Classifies one trimmed, non-empty line; the first matching rule wins. */
export function classify(line: string): Received {
  // A plain `ok` matches none of the rules before the acknowledgement's: answered first, it costs
  // no pattern tests and no object on every line of a job.
  if (line === 'ok') return ACK;
  if (line.startsWith('//action:')) return { kind: 'action', text: line.slice('//action:'.length) };
  if (/^resend:/i.test(line) || line.startsWith('rs ')) {
    const number = /\d+/.exec(line);
    // A resend request without a number names no line; there is nothing safe to resend.
    if (number) return { kind: 'resend', line: Number(number[0]) };
    return { kind: 'log' };
  }
  if (line.startsWith('!!') || HALT_MARKERS.some((marker) => line.includes(marker))) return { kind: 'halt' };
  if (/^error:/i.test(line)) {
    const text = line.slice('Error:'.length).trim();
    if (LINE_ERRORS.some((prefix) => text.startsWith(prefix))) return { kind: 'line-error' };
    return { kind: 'fatal', text };
  }
  if (line.startsWith('echo:busy:') || line.startsWith('busy:')) {
    return { kind: 'keep-alive', waitingForUser: /paused for (user|input)/.test(line) };
  }
  if (line === 'wait') return { kind: 'idle' };
  if (line === 'ok' || line.startsWith('ok ')) return { kind: 'ack' };
  if (line === 'start') return { kind: 'start' };
  return { kind: 'log' };
}

/** Whether an `ok` carries Marlin's ADVANCED_OK fields (`P<planner slots> B<buffer slots>`). */
export function isAdvancedOk(line: string): boolean {
  return /\bP\d+\b/.test(line) && /\bB\d+\b/.test(line);
}

/** Turns the controller's text into trimmed, non-empty lines; a partial line waits for its end. */
export class ReceivedLineSplitter {
  #rest = '';

  push(text: string): string[] {
    const data = this.#rest + text;
    const lines: string[] = [];
    let start = 0;
    for (let i = 0; i < data.length; i++) {
      const code = data.charCodeAt(i);
      if (code !== 0x0a && code !== 0x0d) continue;
      const line = data.slice(start, i).trim();
      if (line !== '') lines.push(line);
      start = i + 1;
    }
    this.#rest = data.slice(start);
    // A controller spewing bytes without a line end must not grow memory without bound.
    if (this.#rest.length > 4096) this.#rest = this.#rest.slice(-4096);
    return lines;
  }

  reset() {
    this.#rest = '';
  }
}
