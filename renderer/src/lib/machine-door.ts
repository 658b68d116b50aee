// The renderer's way to the machine process: the LAN door tells a page on the workstation where the
// machine door listens, and the e-stop goes there directly (CORS, its preflight cached), so it
// never waits on the core. Whether a machine is connected comes from the LAN door's events stream.
import { useEffect, useState } from 'react';
import { isConnected, MACHINE_DOOR_INFO_ROUTE, MACHINE_ROUTES } from '../../../engine/machine/contract.ts';
import type { MachineState, MachineStatus } from '../../../engine/machine/types.ts';
import { RestError, requestJson } from './rest.ts';
import { authorizationHeader, onSessionChange } from './session.ts';
import { type SseSubscription, subscribeEvents } from './sse.ts';

export interface EstopAnswer {
  sent: boolean;
  status: MachineStatus;
}

/** The machine door's URL, or null for a page that is not on the workstation. */
export async function fetchMachineDoor(signal?: AbortSignal): Promise<string | null> {
  const response = await fetch(MACHINE_DOOR_INFO_ROUTE, { cache: 'no-store', ...(signal ? { signal } : {}) });
  if (!response.ok) return null;
  const { url } = (await response.json()) as { url: string | null };
  return url;
}

async function postEstop(base: string): Promise<EstopAnswer> {
  const response = await fetch(`${base}${MACHINE_ROUTES.estop}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    cache: 'no-store',
  });
  const body = (await response.json()) as EstopAnswer & { detail?: string };
  if (!response.ok) throw new Error(body.detail ?? `HTTP ${response.status}`);
  return body;
}

/**
 * M112 now: straight to the machine door when its URL is known, else (or if that fails) through
 * the LAN door, which forwards it.
 */
export async function emergencyStop(machineDoor: string | null): Promise<EstopAnswer> {
  if (machineDoor) {
    try {
      return await postEstop(machineDoor);
    } catch {
      // The LAN door is the second way there.
    }
  }
  return postEstop('');
}

/**
 * The LAN door's machine events with the session's bearer (a signed-in LAN browser may read them),
 * opened anew whenever the session changes: signing in after a refusal starts the stream.
 */
export function subscribeMachineEvents(
  handlers: Record<string, (data: unknown) => void>,
  onConnection?: (open: boolean) => void,
  onRefused?: (status: number) => void,
): SseSubscription {
  const open = () =>
    subscribeEvents(MACHINE_ROUTES.events, handlers, onConnection, {
      headers: authorizationHeader,
      ...(onRefused ? { onRefused } : {}),
    });
  let subscription = open();
  const stopListening = onSessionChange(() => {
    subscription.close();
    subscription = open();
  });
  return {
    close: () => {
      stopListening();
      subscription.close();
    },
  };
}

/** The machine's state as the LAN door's events stream reports it (null until the first status, or when refused). */
export function useMachineState(): MachineState | null {
  const [state, setState] = useState<MachineState | null>(null);
  useEffect(() => {
    const subscription = subscribeMachineEvents(
      {
        status: (data) => setState((data as MachineStatus).state),
        state: (data) => setState((data as { state: MachineState }).state),
      },
      undefined,
      () => setState(null),
    );
    return () => subscription.close();
  }, []);
  return state;
}

/** The server refused control to this browser: not on the workstation (403) or not addressed by a loopback name (421). */
export function isControlRefused(status: number): boolean {
  return status === 403 || status === 421;
}

let controlProbe: Promise<boolean> | null = null;

/**
 * Whether this browser may control the machine, asked once per page. A connect request without a
 * port is refused before its body is read (403, or 421 for a page reached by a name other than a
 * loopback one) when only the workstation may control the machine, and rejected as invalid (400)
 * when control is allowed; either way nothing moves. Asked from loopback pages too: behind a
 * reverse proxy a LAN browser's page can have a loopback address.
 */
export function mayControlMachine(): Promise<boolean> {
  controlProbe ??= requestJson(MACHINE_ROUTES.connect, { method: 'POST', body: {} }).then(
    () => true,
    (error: unknown) => !(error instanceof RestError && isControlRefused(error.status)),
  );
  return controlProbe;
}

/** Whether this browser may control the machine (null until known). */
export function useMayControlMachine(): boolean | null {
  const [allowed, setAllowed] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    void mayControlMachine().then((answer) => live && setAllowed(answer));
    return () => {
      live = false;
    };
  }, []);
  return allowed;
}

/** The machine door's URL for this page, asked once. */
export function useMachineDoor(): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    fetchMachineDoor(abort.signal).then(setUrl, () => setUrl(null));
    return () => abort.abort();
  }, []);
  return url;
}

export { isConnected };
