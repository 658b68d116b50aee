// The job the machine is running, as the machine reports it: its program's name whoever started
// it (this panel, the CLI, the winding door), where in the winding it is (layer and circuit, as the
// machine process read them from the job's own program, not the file open for editing), the feed
// override and, after an e-stop, the way back.
import { useEffect, useState } from 'react';
import { FEED_OVERRIDE_MAX, FEED_OVERRIDE_MIN } from '#engine/machine/contract.ts';
import type { MachineStatus } from '#engine/machine/types.ts';
import { describeCheckpoint } from '#engine/plan/checkpoints.ts';

/** Which program the machine's job winds, and where in it the job is. */
export function RunningJob({ status }: { status: MachineStatus | null }) {
  const program = status?.job ? status.program : undefined;
  if (!program || !status?.job) return null;
  // The machine process reads the job's layer comments and names the place in its progress.
  const place = status.job.place;
  return (
    <div className="machine__running" data-testid="running-job" data-sha256={program.sha256}>
      <p>
        Job: <strong>{program.name ?? 'unnamed program'}</strong>
      </p>
      {place && (
        <p data-testid="job-place" data-layer={place.layer} data-circuit={place.circuit ?? ''}>
          {describeCheckpoint({ ...place, kind: place.circuit === null ? 'layer' : 'circuit' })}
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
