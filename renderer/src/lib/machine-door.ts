// The renderer's way to the machine process: the LAN door tells a page on the workstation where the
// machine door listens, and the e-stop goes there directly (CORS, its preflight cached), so it
// never waits on the core. Whether a machine is connected comes from the LAN door's events stream.
import { useEffect, useState } from 'react';
import { isConnected, MACHINE_DOOR_INFO_ROUTE, MACHINE_ROUTES } from '../../../engine/machine/contract.ts';
import type { MachineState, MachineStatus } from '../../../engine/machine/types.ts';

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

/** The machine's state as the LAN door's events stream reports it (null until the first status). */
export function useMachineState(): MachineState | null {
  const [state, setState] = useState<MachineState | null>(null);
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(MACHINE_ROUTES.events);
    const onStatus = (event: MessageEvent<string>) =>
      setState((JSON.parse(event.data) as MachineStatus).state);
    const onState = (event: MessageEvent<string>) =>
      setState((JSON.parse(event.data) as { state: MachineState }).state);
    source.addEventListener('status', onStatus);
    source.addEventListener('state', onState);
    return () => source.close();
  }, []);
  return state;
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
