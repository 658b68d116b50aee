// Resume as the panel sees it: the last job of the open program that ended without completing
// (how far it got is remembered here, because reconnecting to the controller clears the machine's
// own record of it), the open program's checkpoints, the checkpoint the 3D view shows while one is
// being chosen, and the resumed job's start and progress in the open program's command numbers.
import { useCallback, useEffect, useRef, useState } from 'react';
import { MACHINE_ROUTES, type ResumeJobResponse } from '#engine/machine/contract.ts';
import type { MachineStatus } from '#engine/machine/types.ts';
import { checkpointSlices, type ProgramCheckpoints } from '#engine/plan/checkpoints.ts';
import { RestError, requestJson } from '../../../lib/rest.ts';

/** How far a stopped job got, in the open program's commands. */
export interface StoppedJob {
  acknowledged: number;
  total: number;
}

export interface ResumeView {
  /** The open program's last job that ended without completing; null when there is none. */
  stopped: StoppedJob | null;
  /** Reads the open program's checkpoints (rejects with the reason when it has none). */
  checkpoints(): Promise<ProgramCheckpoints>;
  /** Shows in the 3D view what is wound before this command and what is still to wind; null ends it. */
  preview(command: number | null): void;
  /** Starts the resumed job; resolves with the machine door's answer (202 or an error). */
  start(checkpoint: number, towAttached: boolean): Promise<{ status: number; body: unknown }>;
  /** The command the 3D view should stand at for resume (a preview, or a resumed job's progress). */
  line: number | null;
}

/** The open program's text, as the preview worker holds it. */
interface Source {
  programBlob(): Promise<Blob | null>;
}

/** A resumed job running or last run: where its commands sit in the open program. */
interface Resumed {
  from: number;
  leadIn: number;
}

/**
 * `source` is the preview client while a program that plans is open (null otherwise) and
 * `generation` counts the programs opened: both stay the same from render to render.
 */
export function useResume(
  source: Source | null,
  generation: number,
  status: MachineStatus | null,
): ResumeView {
  const [stopped, setStopped] = useState<StoppedJob | null>(null);
  const [previewLine, setPreviewLine] = useState<number | null>(null);
  const resumed = useRef<Resumed | null>(null);

  // Another program open: a stopped job is no longer the open program's.
  useEffect(() => {
    void generation;
    setStopped(null);
    setPreviewLine(null);
    resumed.current = null;
  }, [generation]);

  const state = status?.state;
  const job = status?.job ?? null;
  /** A resumed job's command in the open program's numbering. */
  const inProgram = useCallback((line: number) => {
    const r = resumed.current;
    return r === null ? line : r.from + Math.max(0, line - r.leadIn);
  }, []);
  useEffect(() => {
    if (job === null) return;
    if (state === 'cancelled' || state === 'error') {
      setStopped({ acknowledged: inProgram(job.acknowledged), total: job.total });
    } else if (state === 'completed') {
      setStopped(null);
      resumed.current = null;
    }
  }, [state, job, inProgram]);

  const checkpoints = useCallback(async () => {
    const blob = await source?.programBlob();
    if (!blob) throw new Error('No program is open');
    // In slices, so a long program does not freeze the page (and its e-stop button) while it is read.
    const steps = checkpointSlices(await blob.text());
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }, [source]);

  const start = useCallback(
    async (checkpoint: number, towAttached: boolean) => {
      const blob = await source?.programBlob();
      if (!blob || !stopped)
        return { status: 409, body: { detail: 'No stopped job of the open program to resume' } };
      try {
        const body = await requestJson<ResumeJobResponse>(MACHINE_ROUTES.resumeJob, {
          method: 'POST',
          body: { gcode: await blob.text(), checkpoint, towAttached, acknowledged: stopped.acknowledged },
        });
        resumed.current = { from: body.checkpoint.command, leadIn: body.leadIn.length };
        setPreviewLine(null);
        return { status: 202, body };
      } catch (error) {
        if (error instanceof RestError) return { status: error.status, body: { detail: error.message } };
        throw error;
      }
    },
    [source, stopped],
  );

  const running = state === 'streaming' || state === 'paused';
  const line =
    previewLine ?? (running && resumed.current !== null && job !== null ? inProgram(job.line) : null);
  return { stopped, checkpoints, preview: setPreviewLine, start, line };
}
