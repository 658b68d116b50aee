// The operator's panel: connection, the job of the open program, and what the controller said.
import { useId, useMemo, useState } from 'react';
import {
  BAUD_RATES,
  homeableAxes,
  isBusy,
  isConnected,
  mayCancel,
  mayPause,
  mayResume,
  mayStartJob,
} from '#engine/machine/contract.ts';
import { AXIS_FORMATS } from '#engine/machine/manual.ts';
import type { MachineState } from '#engine/machine/types.ts';
import type { AxisFormat } from '#engine/plan/types.ts';
import { formatDuration, formatNumber } from '../../../ui/format.ts';
import { ProgressBar } from '../../../ui/ProgressBar.tsx';
import { ChoiceSelect } from './ChoiceSelect.tsx';
import { JogPad } from './JogPad.tsx';
import { MachineConsole } from './MachineConsole.tsx';
import { ProfilePicker } from './ProfilePicker.tsx';
import { ResumeButton } from './ResumeDialog.tsx';
import { FeedOverride, RunningJob } from './RunningJob.tsx';
import type { LogEntry, LogKind, MachineView } from './useMachine.ts';
import { useProfiles } from './useMachineRecords.ts';
import type { ResumeView } from './useResume.ts';

const DEFAULT_BAUD = 250000;

const LOG_FILTERS: Record<string, { label: string; keep: (entry: LogEntry) => boolean }> = {
  all: { label: 'Everything', keep: () => true },
  problems: {
    label: 'Resends, busy and errors',
    keep: (e) => e.kind === 'error' || /resend|busy|error|rs\b/i.test(e.text),
  },
  rx: { label: 'Received', keep: (e) => e.kind === 'rx' },
  tx: { label: 'Sent', keep: (e) => e.kind === 'tx' },
  events: { label: 'State and actions', keep: (e) => e.kind === 'state' || e.kind === 'action' },
};

const KIND_LABEL: Record<LogKind, string> = { rx: '←', tx: '→', action: '•', error: '!', state: '•' };

/** Why manual control is off, or null when the operator may jog and type commands. */
export function manualControlOff(state: MachineState, control: { allowed: boolean; reason?: string }) {
  if (!control.allowed) return control.reason ?? 'Machine control is not allowed from here.';
  if (state === 'paused') return 'Manual control is off while a job is paused; cancel the job first.';
  if (state === 'streaming') return 'Manual control is off while a job runs.';
  if (!isConnected(state)) return 'Connect to the controller to use manual control.';
  return null;
}

export interface MachinePanelProps {
  machine: MachineView;
  /** The open program, if one can be streamed: its name and how to start or dry-run it. */
  program: { name: string; start(): Promise<void>; dryRun(): Promise<void> } | null;
  /** Taking a stopped job of the open program up again from a checkpoint. */
  resume?: ResumeView;
}

export function MachinePanel({ machine, program, resume }: MachinePanelProps) {
  const ids = useId();
  const [port, setPort] = useState('');
  const [baud, setBaud] = useState<number>(DEFAULT_BAUD);
  const [axisFormat, setAxisFormat] = useState<AxisFormat>('xab');
  const [filter, setFilter] = useState('all');
  const [search, setSearch] = useState('');
  const [starting, setStarting] = useState(false);
  const { status, access } = machine;
  const state = status?.state ?? 'idle';
  const connected = isConnected(state);
  const busy = isBusy(state);
  const control = access.allowed;
  const job = status?.job ?? null;
  const manualOff = manualControlOff(state, access);
  const profiles = useProfiles(control);
  const [chosenProfile, setChosenProfile] = useState<number | null>(null);
  // Connected with a profile (from here or elsewhere): that one is shown.
  const profileId = connected && status?.profile ? status.profile.id : chosenProfile;
  const profile = profiles.profiles.find((p) => p.id === profileId) ?? null;

  const shownLog = useMemo(() => {
    const keep = (LOG_FILTERS[filter] ?? LOG_FILTERS.all)?.keep ?? (() => true);
    const needle = search.trim().toLowerCase();
    return machine.log.filter((e) => keep(e) && (needle === '' || e.text.toLowerCase().includes(needle)));
  }, [machine.log, filter, search]);

  const start = async () => {
    if (!program) return;
    setStarting(true);
    try {
      await program.start();
    } finally {
      setStarting(false);
    }
  };

  return (
    <section className="machine" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Machine</h2>
      <p
        role="status"
        className={`machine__state machine__state--${state}`}
        data-testid="machine-state"
        data-state={state}
      >
        {status ? `State: ${state}` : 'State: unknown'}
        {status?.message ? ` — ${status.message}` : ''}
        {status?.port ? ` · ${status.port} at ${status.baudRate ?? '?'} baud` : ''}
        {status?.controller?.firmware ? ` · ${status.controller.firmware}` : ''}
        {!machine.live && ' · events reconnecting…'}
      </p>
      {!machine.watch.allowed && (
        <p className="machine__notice" data-testid="watch-disabled">
          {machine.watch.reason}
        </p>
      )}
      {!control && (
        <p className="machine__notice" data-testid="control-disabled">
          {access.reason}
        </p>
      )}
      {machine.problem && (
        <p className="machine__problem" role="alert">
          {machine.problem}
        </p>
      )}

      {/* Outside the connection form: the profile dialog holds a form of its own. */}
      <ProfilePicker
        profiles={profiles}
        chosen={profileId}
        onChoose={setChosenProfile}
        port={port}
        chooseDisabled={!control || connected || busy}
        editDisabled={!control}
      />
      <form
        className="machine__connection"
        onSubmit={(event) => {
          event.preventDefault();
          if (profile) void machine.connect({ profileId: profile.id });
          else if (port.trim() !== '')
            void machine.connect({ port: port.trim(), baudRate: baud, axisFormat });
        }}
      >
        <label>
          Serial port{' '}
          <input
            aria-label="Serial port"
            list={`${ids}-ports`}
            value={profile ? profile.port : port}
            placeholder="/dev/ttyUSB0"
            onChange={(event) => setPort(event.target.value)}
            disabled={!control || busy || connected || profile !== null}
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        <datalist id={`${ids}-ports`}>
          {machine.ports?.ports.map((p) => (
            <option key={p.path} value={p.path}>
              {[p.manufacturer, p.serialNumber].filter(Boolean).join(' ')}
            </option>
          ))}
        </datalist>
        <button type="button" onClick={() => void machine.refreshPorts()} disabled={!control}>
          Refresh ports
        </button>
        <ChoiceSelect
          label="Baud rate"
          value={profile ? profile.baudRate : baud}
          choices={BAUD_RATES}
          onChange={setBaud}
          disabled={!control || connected || busy || profile !== null}
        />
        <ChoiceSelect
          label="Controller axes"
          value={profile ? profile.axisFormat : axisFormat}
          choices={AXIS_FORMATS}
          onChange={setAxisFormat}
          disabled={!control || connected || busy || profile !== null}
          show={(format) => (format === 'xab' ? 'X A B' : 'X Y Z')}
        />
        <button type="submit" disabled={!control || connected || busy || (!profile && port.trim() === '')}>
          Connect
        </button>
        <button
          type="button"
          onClick={() => void machine.disconnect()}
          disabled={!control || !connected || busy}
        >
          Disconnect
        </button>
        {state === 'error' && (
          <button type="button" onClick={() => void machine.reset()} disabled={!control}>
            Reset controller
          </button>
        )}
        {machine.ports?.warning && <p className="machine__hint">{machine.ports.warning}</p>}
        {machine.ports && machine.ports.ports.length === 0 && (
          <p className="machine__hint">
            No serial ports found; type the device path (virtual ports are not listed).
          </p>
        )}
      </form>

      <div className="machine__job">
        <RunningJob status={status} />
        <p>
          Program:{' '}
          {program ? <strong>{program.name}</strong> : 'none open (open a definition or G-code file first)'}
        </p>
        <div className="toolbar">
          <button
            type="button"
            onClick={start}
            disabled={!control || !program || !mayStartJob(state) || starting}
          >
            Start
          </button>
          <button type="button" onClick={() => void program?.dryRun()} disabled={!program}>
            Dry run
          </button>
          <button type="button" onClick={() => void machine.pause()} disabled={!control || !mayPause(state)}>
            Pause job
          </button>
          <button
            type="button"
            onClick={() => void machine.resume()}
            disabled={!control || !mayResume(state)}
          >
            Resume job
          </button>
          <button
            type="button"
            onClick={() => void machine.cancel()}
            disabled={!control || !mayCancel(state)}
          >
            Cancel job
          </button>
        </div>
        <ProgressBar
          label="Job progress"
          value={job ? job.acknowledged : 0}
          max={job ? Math.max(job.total, 1) : 1}
          text={
            job
              ? `${formatNumber(job.sent)} of ${formatNumber(job.total)} lines sent · ${formatNumber(job.acknowledged)} done · elapsed ${formatDuration(job.elapsed_s)} · remaining ${formatDuration(job.remaining_s)}`
              : 'No job'
          }
        />
        <FeedOverride
          value={status?.feedOverride}
          disabledReason={
            !control
              ? (access.reason ?? 'Machine control is not allowed from here.')
              : connected
                ? null
                : 'Connect first.'
          }
          onSet={machine.feedOverride}
        />
        {resume && program && (
          <ResumeButton
            resume={resume}
            {...(profile ? { queueDepth: profile.queueDepth } : {})}
            blockedReason={
              !control
                ? (access.reason ?? 'Machine control is not allowed from here.')
                : mayStartJob(state)
                  ? null
                  : 'Connect to the controller first (after an emergency stop, connect again).'
            }
            onStarted={machine.jobStarted}
          />
        )}
        {job && (
          <p className="machine__line" data-testid="job-line" data-line={job.line}>
            Line {job.sourceLine}: <code>{job.command}</code>
          </p>
        )}
      </div>

      <JogPad
        machine={machine}
        position={status?.position}
        disabledReason={manualOff}
        {...(connected && profile ? { homeable: homeableAxes(profile) } : {})}
      />
      <MachineConsole send={machine.sendCommand} disabledReason={manualOff} />

      <div className="machine__log">
        <div className="toolbar">
          <label>
            Show{' '}
            <select value={filter} onChange={(event) => setFilter(event.target.value)}>
              {Object.entries(LOG_FILTERS).map(([key, f]) => (
                <option key={key} value={key}>
                  {f.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Filter log{' '}
            <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
          </label>
        </div>
        {/* The log role on a wrapper, not on the list: a list given another role leaves its items orphaned. */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling log must be reachable by keyboard to scroll it */}
        <div role="log" aria-label="Machine log" className="log" tabIndex={0}>
          <ol className="log__list">
            {shownLog.slice(-200).map((entry, k) => (
              <li key={`${entry.seq}-${k}`} className={`log__entry log__entry--${entry.kind}`}>
                <span aria-hidden="true">{KIND_LABEL[entry.kind]}</span> {entry.text}
              </li>
            ))}
          </ol>
        </div>
      </div>
    </section>
  );
}
