// The running job's own program for the 3D view, when the open file is not it: a job started from
// the CLI, the winding door or another browser. Its text comes from the machine's job/program route
// into a preview worker of its own, so the open file and the Design tab's working copy stay as they
// are in theirs.
import { useEffect, useRef, useState } from 'react';
import { isBusy, MACHINE_ROUTES } from '#engine/machine/contract.ts';
import type { MachineStatus } from '#engine/machine/types.ts';
import { authorizationHeader } from '../../lib/session.ts';
import { PreviewClient } from './preview/client.ts';
import type { PlanOptionsState, ViewGeometry } from './preview/protocol.ts';

export type RunningJobView =
  | { phase: 'none' }
  | { phase: 'loading'; name: string }
  | { phase: 'failed'; name: string; message: string }
  | { phase: 'loaded'; name: string; geometry: ViewGeometry; client: PreviewClient; line: number };

/** The label a job without a name gets. */
const UNNAMED = 'unnamed program';

async function fetchJobProgram(): Promise<Blob> {
  const response = await fetch(MACHINE_ROUTES.jobProgram, {
    headers: authorizationHeader(),
    cache: 'no-store',
  });
  if (!response.ok) {
    // The route answers its reason (too long to keep, no job yet) as the usual error envelope.
    const body = (await response.json().catch(() => null)) as { detail?: string; message?: string } | null;
    throw new Error(body?.detail ?? body?.message ?? `HTTP ${response.status}`);
  }
  return response.blob();
}

/**
 * Loads the job's program while `wanted` (a job is known and the open program is not its), keyed by
 * its SHA-256 so a new job loads anew and progress updates do not. The last job's drawing stays
 * after it ends, so a finished or stopped job can still be looked at.
 */
export function useRunningJob(
  status: MachineStatus | null,
  wanted: boolean,
  options: PlanOptionsState,
): RunningJobView {
  const clientRef = useRef<PreviewClient | null>(null);
  const [loaded, setLoaded] = useState<
    | { sha256: string; name: string; geometry: ViewGeometry }
    | { sha256: string; name: string; failed: string }
    | { sha256: string; name: string; loading: true }
    | null
  >(null);
  const program = status?.program;
  const busy = status ? isBusy(status.state) : false;
  const sha256 = program?.sha256 ?? null;
  const name = program?.name ?? UNNAMED;
  const optionsRef = useRef(options);
  optionsRef.current = options;

  // A program is fetched only for a job that runs: a finished one seen on arrival is not drawn.
  const shouldLoad = wanted && busy && sha256 !== null;
  /** The job whose program was asked for last, so status updates of the same job fetch nothing. */
  const askedRef = useRef<string | null>(null);
  useEffect(() => {
    if (!shouldLoad || sha256 === null || askedRef.current === sha256) return;
    askedRef.current = sha256;
    setLoaded({ sha256, name, loading: true });
    clientRef.current ??= new PreviewClient();
    const client = clientRef.current;
    // A load finishes even when the job ends first (a short job is still worth a look); a newer
    // job's answer is the only one that counts.
    const settle = (next: NonNullable<typeof loaded>) => {
      if (askedRef.current === sha256) setLoaded(next);
    };
    fetchJobProgram()
      .then((blob) => client.openBlob(name, blob, optionsRef.current))
      .then(
        (result) =>
          settle(
            result.ok
              ? { sha256, name, geometry: result.geometry }
              : { sha256, name, failed: result.error.message },
          ),
        (error: unknown) =>
          settle({ sha256, name, failed: error instanceof Error ? error.message : String(error) }),
      );
  }, [shouldLoad, sha256, name]);

  useEffect(
    () => () => {
      askedRef.current = null;
      void clientRef.current?.close();
      clientRef.current = null;
    },
    [],
  );

  if (!wanted || loaded === null || loaded.sha256 !== sha256) return { phase: 'none' };
  if ('loading' in loaded) return { phase: 'loading', name: loaded.name };
  if ('failed' in loaded) return { phase: 'failed', name: loaded.name, message: loaded.failed };
  const client = clientRef.current;
  if (!client) return { phase: 'none' };
  return {
    phase: 'loaded',
    name: loaded.name,
    geometry: loaded.geometry,
    client,
    line: status?.job?.line ?? 0,
  };
}
