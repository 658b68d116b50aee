// "Resume from…": after a job of the open program ended without completing, a small form to take
// it up again from a checkpoint — the last circuit that certainly completed is chosen, any earlier
// one may be — and whether the tow still runs to the part. While it is open the 3D view shows
// what is wound before the chosen checkpoint and what the resumed job will wind.
import { useEffect, useId, useState } from 'react';
import { DEFAULT_QUEUE_DEPTH, suggestCheckpoint } from '#engine/machine/resume.ts';
import { type Checkpoint, describeCheckpoint } from '#engine/plan/checkpoints.ts';
import { formatNumber } from '../../../ui/format.ts';
import type { ResumeView } from './useResume.ts';

export interface ResumeFormProps {
  resume: ResumeView;
  /** Why a resumed job cannot start now (not connected, a job runs); null when it can. */
  blockedReason: string | null;
  /** Lines the controller may hold unmoved (the profile's queue depth): the suggestion counts back this far. */
  queueDepth?: number;
  onStarted(answer: { status: number; body: unknown }): void;
}

type Loaded = { checkpoints: Checkpoint[]; suggested: Checkpoint | undefined } | { error: string };

export function ResumeButton({
  resume,
  blockedReason,
  queueDepth = DEFAULT_QUEUE_DEPTH,
  onStarted,
}: ResumeFormProps) {
  const [open, setOpen] = useState(false);
  const stopped = resume.stopped;
  if (stopped === null) return null;
  return (
    <div className="machine__resume">
      <button
        type="button"
        aria-expanded={open}
        onClick={() => {
          if (open) resume.preview(null);
          setOpen(!open);
        }}
      >
        Resume from…
      </button>
      {open && (
        <ResumeForm
          resume={resume}
          acknowledged={stopped.acknowledged}
          queueDepth={queueDepth}
          blockedReason={blockedReason}
          onDone={(answer) => {
            setOpen(false);
            onStarted(answer);
          }}
        />
      )}
    </div>
  );
}

function ResumeForm({
  resume,
  acknowledged,
  queueDepth,
  blockedReason,
  onDone,
}: {
  resume: ResumeView;
  acknowledged: number;
  queueDepth: number;
  blockedReason: string | null;
  onDone(answer: { status: number; body: unknown }): void;
}) {
  const ids = useId();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [chosen, setChosen] = useState<number | null>(null);
  const [towAttached, setTowAttached] = useState(true);
  const [starting, setStarting] = useState(false);
  const { checkpoints: read, preview } = resume;

  useEffect(() => {
    let live = true;
    read().then(
      ({ checkpoints }) => {
        if (!live) return;
        // Only checkpoints the job certainly got past can be resumed from.
        const behind = checkpoints.filter((c) => c.command <= acknowledged);
        const suggested = suggestCheckpoint(behind, acknowledged, queueDepth);
        setLoaded({ checkpoints: behind, suggested });
        setChosen(suggested?.index ?? null);
      },
      (error: unknown) =>
        live && setLoaded({ error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
  }, [read, acknowledged, queueDepth]);

  const choice =
    loaded && 'checkpoints' in loaded ? loaded.checkpoints.find((c) => c.index === chosen) : undefined;
  useEffect(() => {
    preview(choice ? choice.command : null);
  }, [choice, preview]);
  useEffect(() => () => preview(null), [preview]);

  if (loaded === null) return <p className="machine__hint">Reading the program's checkpoints…</p>;
  if ('error' in loaded)
    return (
      <p className="machine__problem" role="alert">
        Cannot resume this program: {loaded.error}
      </p>
    );

  return (
    <form
      className="machine__resume-form"
      aria-labelledby={`${ids}-title`}
      onSubmit={(event) => {
        event.preventDefault();
        if (chosen === null) return;
        setStarting(true);
        void resume
          .start(chosen, towAttached)
          .then(onDone)
          .finally(() => setStarting(false));
      }}
    >
      <p id={`${ids}-title`}>
        The job stopped after {formatNumber(acknowledged)} acknowledged lines. Up to {queueDepth} lines before
        that may not have been wound.
      </p>
      {loaded.checkpoints.length === 0 ? (
        <p className="machine__hint">No checkpoint is behind the machine yet: start the program again.</p>
      ) : (
        <>
          <label>
            Resume checkpoint{' '}
            <select
              aria-label="Resume checkpoint"
              value={chosen ?? ''}
              onChange={(event) => setChosen(Number(event.target.value))}
            >
              {loaded.checkpoints.map((c) => (
                <option key={c.index} value={c.index}>
                  {`${c.index}. ${describeCheckpoint(c)} (line ${c.line})${c === loaded.suggested ? ' — suggested' : ''}`}
                </option>
              ))}
            </select>
          </label>
          <label>
            <input
              type="checkbox"
              checked={towAttached}
              onChange={(event) => setTowAttached(event.target.checked)}
            />{' '}
            Tow still attached
          </label>
          <p className="machine__hint" data-testid="resume-plan">
            {towAttached
              ? 'The mandrel turns only forward to the checkpoint, so the tow is not unwound.'
              : 'The mandrel takes the shorter way to the checkpoint, then the job pauses for you to re-attach the tow.'}{' '}
            The 3D view shows the part wound up to the checkpoint and what the resumed job will wind.
          </p>
          {blockedReason && <p className="machine__hint">{blockedReason}</p>}
          <button type="submit" disabled={chosen === null || starting || blockedReason !== null}>
            Start resumed job
          </button>
        </>
      )}
    </form>
  );
}
