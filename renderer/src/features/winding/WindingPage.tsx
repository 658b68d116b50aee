// The Winding area: open a definition or G-code program, check it, see it in 3D, stream it.
import { type DragEvent, useEffect, useRef, useState } from 'react';
import { isBusy, MACHINE_ROUTES } from '#engine/machine/contract.ts';
import { formatBytes } from '../../ui/format.ts';
import { ProgressBar } from '../../ui/ProgressBar.tsx';
import { DefinitionView } from './DefinitionView.tsx';
import { DesignView } from './design/DesignView.tsx';
import { useDesign } from './design/useDesign.ts';
import { dryRun, namedJobUrl } from './machine/dry-run.ts';
import { JobHistory } from './machine/JobHistory.tsx';
import { MachinePanel } from './machine/MachinePanel.tsx';
import { useMachine } from './machine/useMachine.ts';
import { useResume } from './machine/useResume.ts';
import { useProgram } from './useProgram.ts';
import { useRunningJob } from './useRunningJob.ts';
import { ToolpathView } from './viewer/ToolpathView.tsx';

const ACCEPT = '.wind,.gcode,.nc,.ngc,.g,.txt';

export default function WindingPage() {
  const program = useProgram();
  const machine = useMachine();
  // The design studio's working copy lives here, so it survives a look at the Viewer tab.
  const [view, setView] = useState<'viewer' | 'design'>('viewer');
  const design = useDesign(program.client, program.options, program.adopt, () => setView('design'));
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  /** The load generation whose program the machine is streaming (its progress drives the view). */
  const [streamed, setStreamed] = useState<number | null>(null);
  const { state } = program;
  const loaded = state.phase === 'loaded' ? state.result : null;
  const busy = state.phase === 'loading';

  const machineState = machine.status?.state ?? 'idle';
  // The history is read again when a job starts or ends, and after a dry run (an action in the log).
  const lastAction = machine.log.findLast((entry) => entry.kind === 'action')?.seq;
  // The view follows the job when it winds the open program: started here, or elsewhere (the CLI,
  // the winding door) under the same name with as many commands. Another open file is not relabelled.
  const jobProgram = machine.status?.program;
  const runsOpenProgram =
    streamed === program.generation ||
    (loaded?.ok === true &&
      jobProgram?.name === loaded.name &&
      jobProgram.total === loaded.geometry.commandCount);
  const following = runsOpenProgram && machine.status?.job != null && isBusy(machineState);
  const resume = useResume(loaded?.ok ? program.client : null, program.generation, machine.status);
  const machineLine = following ? (machine.status?.job?.line ?? 0) : resume.line;
  // A job whose program is not the open one is drawn from its own text. While it runs the Viewer
  // shows it, unless the operator chose the open file; once it ends the open file comes back, and
  // with none open the job's drawing stays.
  const job = useRunningJob(machine.status, !runsOpenProgram, program.options);
  const [preferOpen, setPreferOpen] = useState(false);
  const jobSha = jobProgram?.sha256;
  useEffect(() => {
    if (jobSha) setPreferOpen(false);
  }, [jobSha]);
  const jobRuns = machine.status?.job != null && isBusy(machineState);
  const openShown = loaded?.ok === true;
  const jobShown = job.phase !== 'none' && (jobRuns ? !(preferOpen && openShown) : !openShown);

  useEffect(() => {
    if (streamed !== null && streamed !== program.generation) setStreamed(null);
  }, [program.generation, streamed]);

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    // On the Design tab a dropped definition opens for editing there.
    if (file && view === 'design' && /\.(wind|json)$/i.test(file.name)) void design.openFile(file);
    else if (file) void program.openFile(file);
  };

  const openClicked = () => {
    if (program.openNative) void program.openNative();
    else inputRef.current?.click();
  };

  const streamable =
    loaded?.ok === true
      ? {
          name: loaded.name,
          start: async () => {
            const answer = await program.client.startJob(namedJobUrl(MACHINE_ROUTES.job, loaded.name));
            if (answer.status === 202) setStreamed(program.generation);
            machine.jobStarted(answer);
          },
          dryRun: () =>
            dryRun({
              name: loaded.name,
              post: (url) => program.client.startJob(url),
              count: () => program.client.dryRun(),
              say: machine.say,
            }),
        }
      : null;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping a file is a shortcut; "Open file" does the same by keyboard
    <section
      className={`page winding${dragging ? ' winding--dragging' : ''}${view === 'design' ? ' winding--design' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <h1>Winding</h1>
      <div role="tablist" aria-label="Winding views" className="winding__tabs">
        <button type="button" role="tab" aria-selected={view === 'viewer'} onClick={() => setView('viewer')}>
          Viewer
        </button>
        <button type="button" role="tab" aria-selected={view === 'design'} onClick={() => setView('design')}>
          Design
        </button>
      </div>
      {view === 'design' && (
        <DesignView
          design={design}
          client={program.client}
          options={program.options}
          onOptions={(options) => void program.setOptions(options)}
          onSaveGcode={() => void program.saveGcode()}
        />
      )}
      <div className="winding__open toolbar">
        <button type="button" onClick={openClicked} disabled={busy}>
          Open file
        </button>
        <input
          ref={inputRef}
          type="file"
          accept={ACCEPT}
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Choose a .wind or G-code file"
          data-testid="file-input"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) void program.openFile(file);
          }}
        />
        <span className="winding__hint">or drop a .wind or G-code file anywhere on this page</span>
        {program.recent.length > 0 && (
          <nav aria-label="Recent files" className="recent">
            <span>Recent:</span>
            <ul>
              {program.recent.map((entry) => (
                <li key={entry.path ?? `${entry.name}-${entry.size}`}>
                  <button type="button" onClick={() => void program.openRecent(entry)} disabled={busy}>
                    {entry.name}
                    {entry.size ? ` (${formatBytes(entry.size)})` : ''}
                  </button>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </div>

      {state.phase === 'loading' && (
        <ProgressBar
          label={`Opening ${state.name}`}
          value={state.progress && state.progress.total > 0 ? state.progress.done : undefined}
          max={state.progress?.total || 1}
          text={
            state.progress
              ? state.progress.phase === 'reading'
                ? `Reading ${formatBytes(state.progress.done)} of ${formatBytes(state.progress.total)}`
                : state.progress.phase === 'drawing'
                  ? 'Drawing the views…'
                  : `Planning: ${formatBytes(state.progress.done)} of G-code`
              : `Opening ${state.name}…`
          }
        />
      )}
      <p role="status" className="winding__saved" data-testid="save-note">
        {program.saveNote ?? ''}
      </p>
      {state.phase === 'failed' && (
        <p role="alert" className="program-error">
          Could not open {state.name}: {state.message}
        </p>
      )}
      {state.phase === 'empty' && (
        <p className="page__empty">
          Open a winding definition (.wind) to plan it, or any G-code program to simulate and preview it.
        </p>
      )}

      <div className="winding__layout">
        <div className="winding__main">
          {/* The 3D view first: in sight without scrolling on a 1280×800 window. */}
          {view === 'viewer' && jobShown && (
            <section className="winding__job" aria-labelledby="running-job-view" data-testid="job-view">
              <div className="toolbar">
                <h2 id="running-job-view" className="winding__job-title">
                  {jobRuns ? 'Running job' : 'Last job'}: {job.name}
                </h2>
                {job.phase === 'loaded' && (
                  <span data-testid="job-view-progress">
                    {job.line} of {job.geometry.commandCount} commands
                  </span>
                )}
                {openShown && (
                  <button type="button" onClick={() => setPreferOpen(true)}>
                    Show the open file
                  </button>
                )}
              </div>
              {job.phase === 'loading' && <p role="status">Loading the job's program…</p>}
              {job.phase === 'failed' && (
                <p role="alert" className="program-error">
                  Cannot draw the job's program: {job.message}
                </p>
              )}
              {job.phase === 'loaded' && (
                <ToolpathView key="job" geometry={job.geometry} client={job.client} machineLine={job.line} />
              )}
            </section>
          )}
          {view === 'viewer' && !jobShown && jobRuns && job.phase !== 'none' && (
            <div className="toolbar">
              <button type="button" onClick={() => setPreferOpen(false)}>
                Show the running job
              </button>
            </div>
          )}
          {loaded?.ok && view === 'viewer' && !jobShown && (
            <ToolpathView
              key="open"
              geometry={loaded.geometry}
              client={program.client}
              machineLine={machineLine}
            />
          )}
          {loaded && view === 'viewer' && (
            <DefinitionView
              result={loaded}
              options={program.options}
              onOptions={(options) => void program.setOptions(options)}
              onSave={() => void program.saveGcode()}
              busy={busy}
            />
          )}
        </div>
        <aside className="winding__side">
          <MachinePanel machine={machine} program={streamable} resume={resume} />
        </aside>
      </div>
      {/* Below both columns, at the page's width: a job's row has room for its outcome and reason. */}
      <JobHistory changed={`${machineState}|${lastAction ?? ''}`} />
    </section>
  );
}
