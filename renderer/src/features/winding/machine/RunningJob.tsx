// The job the machine is running, as the machine reports it: its program's name whoever started it
// (this panel, the CLI, the winding door), where in the winding it is (layer and circuit, read from
// the job's own program, not the file open for editing), the feed override and, after an e-stop,
// the way back.
import { useEffect, useState } from 'react';
import { FEED_OVERRIDE_MAX, FEED_OVERRIDE_MIN, MACHINE_ROUTES } from '#engine/machine/contract.ts';
import type { JobProgram, MachineStatus } from '#engine/machine/types.ts';
import { type Checkpoint, checkpointSlices, describeCheckpoint } from '#engine/plan/checkpoints.ts';

/**
 * The checkpoints of the job's program, read from its text on the machine door once per program
 * (in slices, so the page stays responsive); null for a program without Towpath's layer comments.
 */
export function useJobCheckpoints(program: JobProgram | undefined): Checkpoint[] | null {
  const sha256 = program?.sha256;
  const [read, setRead] = useState<{ sha256: string; checkpoints: Checkpoint[] | null } | null>(null);
  useEffect(() => {
    if (!sha256) return;
    let live = true;
    void (async () => {
      let checkpoints: Checkpoint[] | null = null;
      try {
        const response = await fetch(MACHINE_ROUTES.jobProgram, { cache: 'no-store' });
        if (response.ok && response.headers.get('x-job-sha256') === sha256) {
          const steps = checkpointSlices(await response.text());
          for (let step = steps.next(); live; step = steps.next()) {
            if (step.done) {
              checkpoints = step.value.checkpoints;
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
        }
      } catch {
        // Not planned by Towpath (no layer comments) or not kept: the place is just not shown.
      }
      if (live) setRead({ sha256, checkpoints });
    })();
    return () => {
      live = false;
    };
  }, [sha256]);
  return read && read.sha256 === sha256 ? read.checkpoints : null;
}

/** The checkpoint the job last passed, given how many of its commands were acknowledged. */
export function placeOf(checkpoints: readonly Checkpoint[], acknowledged: number): Checkpoint | undefined {
  let found: Checkpoint | undefined;
  for (const checkpoint of checkpoints) {
    if (checkpoint.command > acknowledged) break;
    found = checkpoint;
  }
  return found;
}

/** Which program the machine's job winds, and where in it the job is. */
export function RunningJob({ status }: { status: MachineStatus | null }) {
  const program = status?.job ? status.program : undefined;
  const checkpoints = useJobCheckpoints(program);
  if (!program || !status?.job) return null;
  const place = checkpoints ? placeOf(checkpoints, status.job.acknowledged) : undefined;
  return (
    <div className="machine__running" data-testid="running-job" data-sha256={program.sha256}>
      <p>
        Job: <strong>{program.name ?? 'unnamed program'}</strong>
      </p>
      {place && (
        <p data-testid="job-place" data-layer={place.layer} data-circuit={place.circuit ?? ''}>
          {describeCheckpoint(place)}
        </p>
      )}
    </div>
  );
}

/** `M220`: the slider sends its value when let go (or on a key), not on every pixel of a drag. */
export function FeedOverride({
  value,
  disabledReason,
  onSet,
}: {
  value: number | undefined;
  disabledReason: string | null;
  onSet(percent: number): Promise<void>;
}) {
  const [shown, setShown] = useState(value ?? 100);
  useEffect(() => {
    if (value !== undefined) setShown(value);
  }, [value]);
  const commit = (percent: number) => {
    if (percent !== value) void onSet(percent);
  };
  return (
    <div className="machine__feed">
      <label>
        Feed override{' '}
        <input
          type="range"
          aria-label="Feed override"
          aria-valuetext={`${shown} %`}
          title={disabledReason ?? undefined}
          min={FEED_OVERRIDE_MIN}
          max={FEED_OVERRIDE_MAX}
          step={5}
          value={shown}
          disabled={disabledReason !== null}
          onChange={(event) => setShown(Number(event.target.value))}
          onPointerUp={(event) => commit(Number(event.currentTarget.value))}
          onKeyUp={(event) => commit(Number(event.currentTarget.value))}
        />
      </label>{' '}
      {/* Not an <output>: its status role would announce every step; the slider's value text says it. */}
      <span data-testid="feed-override">{shown} %</span>
    </div>
  );
}
