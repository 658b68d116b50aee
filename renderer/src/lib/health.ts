import { useQuery } from '@tanstack/react-query';

/** How often the status bar asks each door, and how long it waits for an answer. Together they keep
 * "a door that stops answering turns red within 5 s" true even for a door that hangs. */
export const HEALTH_POLL_MS = 2000;
export const HEALTH_TIMEOUT_MS = 2000;

export interface Health {
  status: 'ok';
  version: string;
}

export type DoorHealth =
  | { state: 'checking' }
  | { state: 'up'; version: string }
  | { state: 'down'; detail: string }
  | { state: 'unknown'; detail: string };

export interface FetchHealthOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Asks one health route; throws an Error whose message says in a few words what went wrong. */
export async function fetchHealth(
  url: string,
  { signal, timeoutMs = HEALTH_TIMEOUT_MS }: FetchHealthOptions = {},
): Promise<Health> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      cache: 'no-store',
    });
  } catch (error) {
    throw new Error(timeout.aborted ? `no answer within ${timeoutMs / 1000} s` : 'not reachable', {
      cause: error,
    });
  }
  const body = (await response.json().catch(() => null)) as Partial<Health> & { detail?: string };
  if (!response.ok || body?.status !== 'ok') {
    throw new Error(body?.detail ?? `answered HTTP ${response.status}`);
  }
  return { status: 'ok', version: String(body.version) };
}

function usePolledHealth(key: string, url: string) {
  return useQuery({
    queryKey: ['health', key],
    queryFn: ({ signal }) => fetchHealth(url, { signal }),
    refetchInterval: HEALTH_POLL_MS,
    refetchIntervalInBackground: true,
    retry: false,
    gcTime: 0,
  });
}

/**
 * Live health of both doors. The LAN door is asked directly (it serves this page); the winding
 * door stays on loopback, so the LAN door probes it and reports. When the LAN door itself is
 * down, nothing can be said about the winding door.
 */
export function useDoorHealth(): { lan: DoorHealth; winding: DoorHealth } {
  const lan = usePolledHealth('lan', '/healthz');
  const winding = usePolledHealth('winding', '/api/doors/winding/healthz');

  const lanHealth: DoorHealth = lan.isError
    ? { state: 'down', detail: lan.error.message }
    : lan.data
      ? { state: 'up', version: lan.data.version }
      : { state: 'checking' };

  let windingHealth: DoorHealth;
  if (lanHealth.state === 'down')
    windingHealth = { state: 'unknown', detail: 'the LAN door is not answering' };
  else if (winding.isError) windingHealth = { state: 'down', detail: winding.error.message };
  else if (winding.data) windingHealth = { state: 'up', version: winding.data.version };
  else windingHealth = { state: 'checking' };

  return { lan: lanHealth, winding: windingHealth };
}
