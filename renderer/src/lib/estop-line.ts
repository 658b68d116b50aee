// The e-stop's standing line to the machine door (server/machine/process/estop-socket.ts): a
// WebSocket opened while the "Emergency stop" button is on screen, so a press is one message on a
// connection that already exists instead of a new request. Reopened after a drop (the machine
// process restarting), with a growing pause; when it is not open, the button falls back to the POST.
import { useEffect, useRef } from 'react';
import { ESTOP_SOCKET_MESSAGE, ESTOP_SOCKET_ROUTE } from '#engine/machine/door.ts';
import type { EstopAnswer } from './machine-door.ts';

/** An answer later than this counts as lost; the POST goes too (a second M112 changes nothing). */
const ANSWER_TIMEOUT_MS = 1000;
const REOPEN_MIN_MS = 500;
const REOPEN_MAX_MS = 10_000;

export interface EstopLine {
  /** Sends the e-stop and resolves with the door's answer; null when the line is not open now. */
  send(): Promise<EstopAnswer> | null;
  close(): void;
}

interface Waiting {
  resolve: (answer: EstopAnswer) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export function openEstopLine(machineDoor: string): EstopLine {
  const url = `${machineDoor.replace(/^http/, 'ws')}${ESTOP_SOCKET_ROUTE}`;
  let socket: WebSocket | undefined;
  let closed = false;
  let pause = REOPEN_MIN_MS;
  let reopenTimer: ReturnType<typeof setTimeout> | undefined;
  // The door answers in order, one answer per message.
  const waiting: Waiting[] = [];

  const failAll = (reason: string) => {
    for (const entry of waiting.splice(0)) {
      clearTimeout(entry.timer);
      entry.reject(new Error(reason));
    }
  };

  const open = () => {
    reopenTimer = undefined;
    const current = new WebSocket(url);
    socket = current;
    current.onopen = () => {
      pause = REOPEN_MIN_MS;
    };
    current.onmessage = (event) => {
      const entry = waiting.shift();
      if (!entry) return;
      clearTimeout(entry.timer);
      try {
        entry.resolve(JSON.parse(String(event.data)) as EstopAnswer);
      } catch {
        entry.reject(new Error('The machine door answered something unexpected'));
      }
    };
    current.onclose = () => {
      if (socket !== current) return;
      socket = undefined;
      failAll('The e-stop line closed');
      if (closed) return;
      reopenTimer = setTimeout(open, pause);
      pause = Math.min(pause * 2, REOPEN_MAX_MS);
    };
  };
  open();

  return {
    send() {
      if (!socket || socket.readyState !== WebSocket.OPEN) return null;
      socket.send(ESTOP_SOCKET_MESSAGE);
      return new Promise<EstopAnswer>((resolve, reject) => {
        const entry: Waiting = {
          resolve,
          reject,
          timer: setTimeout(() => {
            const at = waiting.indexOf(entry);
            if (at >= 0) waiting.splice(at, 1);
            reject(new Error('The machine door did not answer on the e-stop line'));
          }, ANSWER_TIMEOUT_MS),
        };
        waiting.push(entry);
      });
    },
    close() {
      closed = true;
      if (reopenTimer) clearTimeout(reopenTimer);
      failAll('The e-stop line closed');
      const current = socket;
      socket = undefined;
      current?.close();
    },
  };
}

/** The line to `machineDoor` while `enabled` (the button is on screen); null otherwise. */
export function useEstopLine(machineDoor: string | null, enabled: boolean) {
  const line = useRef<EstopLine | null>(null);
  useEffect(() => {
    if (!machineDoor || !enabled) return;
    const opened = openEstopLine(machineDoor);
    line.current = opened;
    return () => {
      opened.close();
      if (line.current === opened) line.current = null;
    };
  }, [machineDoor, enabled]);
  return line;
}
