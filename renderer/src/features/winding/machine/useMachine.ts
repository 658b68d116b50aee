// The machine as the panel sees it: status and events from /api/machine/events (SSE), the port
// list, and the control routes. Route paths, bodies and state predicates come from the one
// machine contract in engine/machine.
import { useCallback, useEffect, useRef, useState } from 'react';
import {
  type CommandResponse,
  type ConnectRequest,
  type JobStartedResponse,
  MACHINE_ROUTES,
  type ManualResponse,
  type SerialPortList,
} from '#engine/machine/contract.ts';
import type { ManualAxis } from '#engine/machine/manual.ts';
import type { AxisPosition, JobProgress, MachineState, MachineStatus } from '#engine/machine/types.ts';
import { fetchMachineDoor, isControlRefused, subscribeMachineEvents } from '../../../lib/machine-door.ts';
import { RestError, requestJson } from '../../../lib/rest.ts';
import { authorizationHeader } from '../../../lib/session.ts';

export const LOG_LIMIT = 500;

export type LogKind = 'rx' | 'tx' | 'action' | 'error' | 'state';

export interface LogEntry {
  seq: number;
  kind: LogKind;
  text: string;
}

/** Why the controls are off although the panel works (null = they are on). */
export type ControlAccess = { allowed: true } | { allowed: false; reason: string };

export interface MachineView {
  status: MachineStatus | null;
  /** The events stream answered (false while it reconnects or is refused). */
  live: boolean;
  log: LogEntry[];
  ports: SerialPortList | null;
  access: ControlAccess;
  /** Whether this browser may watch the machine: from the LAN only when signed in. */
  watch: ControlAccess;
  /** The last failed request's message, for the panel's alert. */
  problem: string | null;
  refreshPorts(): Promise<void>;
  connect(request: ConnectRequest): Promise<void>;
  disconnect(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  cancel(): Promise<void>;
  /** `M220`: the feed override in percent, taken while a job runs. */
  feedOverride(percent: number): Promise<void>;
  /** After an e-stop or a halt: the last connection opened again, `M999` first. */
  reset(): Promise<void>;
  /** Manual control: each resolves once the controller answered (or the refusal is shown). */
  home(axis: ManualAxis | 'all'): Promise<void>;
  jog(axis: ManualAxis, step: number, feed: number): Promise<void>;
  zero(): Promise<void>;
  readPosition(): Promise<void>;
  motorsOff(): Promise<void>;
  /** The console: true once the controller answered (its lines show in the log as they arrive). */
  sendCommand(command: string): Promise<boolean>;
  /** Records the outcome of a job started elsewhere (the worker posts the program). */
  jobStarted(answer: { status: number; body: unknown }): void;
  say(text: string, kind?: LogKind): void;
}

export const SIGN_IN_REASON =
  'Sign in to watch the machine from this browser: its state and progress are shown to signed-in users only.';

const REMOTE_REASON =
  'Machine control is only allowed on the workstation itself: this browser may watch the machine but not move it.';

function isManualResponse(value: unknown): value is ManualResponse {
  return typeof value === 'object' && value !== null && 'commands' in value && 'status' in value;
}

function isProgress(value: unknown): value is JobProgress {
  return typeof value === 'object' && value !== null && 'total' in value && 'line' in value;
}

export function useMachine(): MachineView {
  const [status, setStatus] = useState<MachineStatus | null>(null);
  const [live, setLive] = useState(false);
  const [log, setLog] = useState<LogEntry[]>([]);
  const [ports, setPorts] = useState<SerialPortList | null>(null);
  const [access, setAccess] = useState<ControlAccess>({ allowed: true });
  const [watch, setWatch] = useState<ControlAccess>({ allowed: true });
  const [problem, setProblem] = useState<string | null>(null);
  const localSeq = useRef(-1);
  /**
   * The position as the events stream (in order) and the manual answers reported it. A status
   * fetched meanwhile can have been made before the last position event, so its position is not
   * taken.
   */
  const position = useRef<AxisPosition | undefined>(undefined);
  const withPosition = useCallback((next: MachineStatus): MachineStatus => {
    const { position: _fetched, ...rest } = next;
    return position.current ? { ...rest, position: position.current } : rest;
  }, []);
  const takeStatus = useCallback((next: MachineStatus) => {
    position.current = next.position;
    setStatus(next);
  }, []);
  /** The 503 reason the panel shows while no machine process is attached, cleared once it answers. */
  const unavailable = useRef<string | null>(null);

  const append = useCallback((entry: LogEntry) => {
    setLog((prev) => {
      const next = prev.length >= LOG_LIMIT ? prev.slice(prev.length - LOG_LIMIT + 1) : prev.slice();
      next.push(entry);
      return next;
    });
  }, []);
  const say = useCallback(
    (text: string, kind: LogKind = 'action') => append({ seq: localSeq.current--, kind, text }),
    [append],
  );

  // Status and events go with the session's bearer: a signed-in LAN browser may read them.
  const refreshStatus = useCallback(async () => {
    try {
      const fetched = await requestJson<MachineStatus>(MACHINE_ROUTES.status, {
        headers: authorizationHeader(),
      });
      setStatus(withPosition(fetched));
      setWatch({ allowed: true });
      const gone = unavailable.current;
      unavailable.current = null;
      if (gone) setProblem((current) => (current === gone ? null : current));
    } catch (error) {
      if (error instanceof RestError && error.status === 401)
        setWatch({ allowed: false, reason: SIGN_IN_REASON });
      else if (error instanceof RestError && isControlRefused(error.status))
        setAccess({ allowed: false, reason: REMOTE_REASON });
      // No machine process attached (starting, or a new one after a crash; or none could start):
      // the panel says the core's reason until the status answers again.
      else if (error instanceof RestError && error.status === 503) {
        unavailable.current = error.message;
        setProblem(error.message);
      }
    }
  }, [withPosition]);

  useEffect(() => {
    const subscription = subscribeMachineEvents(
      {
        status: (data) => takeStatus(data as MachineStatus),
        state: (data) => {
          const { state, message } = data as { state: MachineState; message?: string; seq?: number };
          setStatus((prev) => (prev ? { ...prev, state, message } : prev));
          append({
            seq: Number((data as { seq?: number }).seq ?? 0),
            kind: 'state',
            text: `State: ${state}${message ? ` (${message})` : ''}`,
          });
          void refreshStatus();
        },
        progress: (data) => {
          if (!isProgress(data)) return;
          const { sent, acknowledged, total, line, sourceLine, command, elapsed_s, remaining_s, place } =
            data;
          const job = {
            sent,
            acknowledged,
            total,
            line,
            sourceLine,
            command,
            elapsed_s,
            remaining_s,
            ...(place ? { place } : {}),
          };
          setStatus((prev) => (prev ? { ...prev, job } : prev));
        },
        log: (data) => {
          const { direction, text, seq } = data as { direction: 'rx' | 'tx'; text: string; seq?: number };
          append({ seq: seq ?? 0, kind: direction, text });
        },
        action: (data) => append({ seq: 0, kind: 'action', text: (data as { text: string }).text }),
        'waiting-for-user': (data) =>
          append({ seq: 0, kind: 'action', text: (data as { text: string }).text }),
        position: (data) => {
          position.current = (data as { position: AxisPosition | null }).position ?? undefined;
          setStatus((prev) => (prev ? withPosition(prev) : prev));
        },
        error: (data) => {
          const message = (data as { message?: unknown }).message;
          if (typeof message === 'string') append({ seq: 0, kind: 'error', text: message });
        },
        complete: (data) => {
          const { acknowledged, total, elapsed_s } = data as {
            acknowledged: number;
            total: number;
            elapsed_s: number;
          };
          append({
            seq: 0,
            kind: 'action',
            text: `Job finished: ${acknowledged} of ${total} lines in ${elapsed_s.toFixed(1)} s`,
          });
          void refreshStatus();
        },
      },
      (answered) => {
        setLive(answered);
        if (answered) setWatch({ allowed: true });
        // Answering again after a 503: the status clears the panel's "starting" line.
        if (!answered || unavailable.current) void refreshStatus();
      },
      (code) => {
        if (code === 401) setWatch({ allowed: false, reason: SIGN_IN_REASON });
      },
    );
    return () => subscription.close();
  }, [append, refreshStatus, takeStatus, withPosition]);

  // Whether this browser may control the machine: the LAN door says so by the rule its control
  // routes apply (a LAN browser behind a reverse proxy can have a loopback address, so the page's
  // own address proves nothing).
  useEffect(() => {
    let live = true;
    void fetchMachineDoor().then(({ control }) => {
      if (live && !control) setAccess({ allowed: false, reason: REMOTE_REASON });
    });
    return () => {
      live = false;
    };
  }, []);

  /** Runs a request; true when it was answered, false after showing why it was refused. */
  const attempt = useCallback(
    async (work: () => Promise<unknown>): Promise<boolean> => {
      setProblem(null);
      try {
        const result = await work();
        if (isManualResponse(result)) takeStatus(result.status);
        else if (result && typeof result === 'object' && 'state' in result)
          setStatus(withPosition(result as MachineStatus));
        return true;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof RestError && isControlRefused(error.status))
          setAccess({ allowed: false, reason: REMOTE_REASON });
        setProblem(message);
        say(message, 'error');
        return false;
      }
    },
    [say, takeStatus, withPosition],
  );
  const act = useCallback(
    async (work: () => Promise<unknown>) => {
      await attempt(work);
    },
    [attempt],
  );

  const refreshPorts = useCallback(
    () =>
      act(async () => {
        setPorts(await requestJson<SerialPortList>(MACHINE_ROUTES.ports));
      }),
    [act],
  );

  useEffect(() => {
    void refreshPorts();
  }, [refreshPorts]);

  /** A manual route: posts the body and takes the status it answers with. */
  function manual<A extends unknown[]>(route: string, body: (...args: A) => object) {
    return async (...args: A) => {
      await act(() => requestJson<ManualResponse>(route, { method: 'POST', body: body(...args) }));
    };
  }

  return {
    status,
    live,
    log,
    ports,
    access,
    watch,
    problem,
    refreshPorts,
    connect: (request) => act(() => requestJson(MACHINE_ROUTES.connect, { method: 'POST', body: request })),
    disconnect: () => act(() => requestJson(MACHINE_ROUTES.disconnect, { method: 'POST' })),
    pause: () => act(() => requestJson(MACHINE_ROUTES.pause, { method: 'POST' })),
    resume: () => act(() => requestJson(MACHINE_ROUTES.resume, { method: 'POST' })),
    cancel: () => act(() => requestJson(MACHINE_ROUTES.cancel, { method: 'POST' })),
    feedOverride: (percent) =>
      act(() => requestJson(MACHINE_ROUTES.feed, { method: 'POST', body: { percent } })),
    reset: () => act(() => requestJson(MACHINE_ROUTES.reset, { method: 'POST' })),
    home: manual(MACHINE_ROUTES.home, (axis: ManualAxis | 'all') => ({ axis })),
    jog: manual(MACHINE_ROUTES.jog, (axis: ManualAxis, step: number, feed: number) => ({ axis, step, feed })),
    zero: manual(MACHINE_ROUTES.zero, () => ({})),
    readPosition: manual(MACHINE_ROUTES.position, () => ({})),
    motorsOff: manual(MACHINE_ROUTES.motorsOff, () => ({})),
    sendCommand: (command) =>
      attempt(() =>
        requestJson<CommandResponse>(MACHINE_ROUTES.command, { method: 'POST', body: { command } }),
      ),
    jobStarted: (answer) => {
      if (answer.status === 202) {
        const body = answer.body as JobStartedResponse;
        setStatus(withPosition(body.status));
        setProblem(null);
        say(`Job started: ${body.total} lines`);
        return;
      }
      const detail = (answer.body as { detail?: unknown } | null)?.detail;
      const message = typeof detail === 'string' ? detail : `The job was refused (HTTP ${answer.status})`;
      if (isControlRefused(answer.status)) setAccess({ allowed: false, reason: REMOTE_REASON });
      setProblem(message);
      say(message, 'error');
    },
    say,
  };
}
