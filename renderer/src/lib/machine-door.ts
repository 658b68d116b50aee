// The renderer's way to the machine process: the LAN door tells a page on the workstation where the
// machine door listens, and the e-stop goes there directly (CORS, its preflight cached), so it
// never waits on the core. Whether a machine is connected comes from the LAN door's events stream.
import { useEffect, useState } from 'react';
import {
  isConnected,
  MACHINE_DOOR_INFO_ROUTE,
  MACHINE_ROUTES,
  type MachineDoorInfo,
} from '#engine/machine/contract.ts';
import type { MachineState, MachineStatus } from '#engine/machine/types.ts';
import type { EstopLine } from './estop-line.ts';
import { authorizationHeader, onSessionChange } from './session.ts';
import { type SseSubscription, subscribeEvents } from './sse.ts';

export interface EstopAnswer {
  sent: boolean;
  status: MachineStatus;
}

/** What a page that cannot ask is told: no machine door, and control as the server will decide it. */
const UNKNOWN: MachineDoorInfo = { url: null, control: true };
let doorInfo: Promise<MachineDoorInfo> | null = null;

/**
 * Where the machine door is (null for a page not on the workstation) and whether this browser may
 * control the machine, asked once per page; an answer that did not come is asked for again later.
 * A page reached by a name the control routes refuse (421) may not control either.
 */
export function fetchMachineDoor(): Promise<MachineDoorInfo> {
  doorInfo ??= fetch(MACHINE_DOOR_INFO_ROUTE, { cache: 'no-store' }).then(
    async (response) => {
      if (response.ok) return (await response.json()) as MachineDoorInfo;
      doorInfo = null;
      return isControlRefused(response.status) ? { url: null, control: false } : UNKNOWN;
    },
    () => {
      doorInfo = null;
      return UNKNOWN;
    },
  );
  return doorInfo;
}

async function postEstop(base: string): Promise<EstopAnswer> {
  const response = await fetch(`${base}${MACHINE_ROUTES.estop}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    // No `cache` option: POST answers are never cached anyway, and Chromium skips its CORS preflight
    // cache for a no-store request, which cost every click a preflight round trip first.
  });
  const body = (await response.json()) as EstopAnswer & { detail?: string };
  if (!response.ok) throw new Error(body.detail ?? `HTTP ${response.status}`);
  return body;
}

/**
 * M112 now: over the standing line to the machine door when it is open, else (or if that fails)
 * by POST straight to the machine door when its URL is known, else (or if that fails) through the
 * LAN door, which forwards it.
 */
export async function emergencyStop(
  machineDoor: string | null,
  line?: EstopLine | null,
): Promise<EstopAnswer> {
  const overLine = line?.send();
  if (overLine) {
    try {
      return await overLine;
    } catch {
      // Sent, perhaps, but not answered: the POST goes too (a second M112 changes nothing).
    }
  }
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

/** The machine door and whether this browser may control the machine (null until known). */
export function useMachineDoor(): MachineDoorInfo | null {
  const [info, setInfo] = useState<MachineDoorInfo | null>(null);
  useEffect(() => {
    let live = true;
    void fetchMachineDoor().then((answer) => live && setInfo(answer));
    return () => {
      live = false;
    };
  }, []);
  return info;
}

export { isConnected };
