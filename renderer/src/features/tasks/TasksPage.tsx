// The Tasks area: today's tasks from the operator's task app and the one being tracked, with the
// few actions an operator needs at the machine. Every change goes to the task app at once; the
// lists are asked again afterwards (and every few seconds, for changes made in the app itself).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { hintFor, type Task, TaskApiError, tasksApi } from './api.ts';
import { clock, span } from './time.ts';
import './tasks.css';

const REFRESH_MS = 10_000;

type Action = 'start' | 'setCurrent' | 'complete' | 'uncomplete';

function useNow(running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

function Problem({ error, retry }: { error: unknown; retry?: () => void }) {
  const hint = hintFor(error);
  // Trying again from another computer cannot help: the task app is the workstation's alone.
  const retryable = !(error instanceof TaskApiError && error.code === 'WORKSTATION_ONLY');
  return (
    <div className="tasks__problem" role="alert">
      <p className="tasks__problem-text">{error instanceof Error ? error.message : String(error)}</p>
      {hint && <p>{hint}</p>}
      {retry && retryable && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

function CurrentTask({
  task,
  fetchedAt,
  onStop,
  busy,
}: {
  task: Task | null;
  fetchedAt: number;
  onStop: () => void;
  busy: boolean;
}) {
  const now = useNow(task !== null);
  if (!task)
    return (
      <section className="tasks__current" aria-labelledby="tasks-current">
        <h2 id="tasks-current">Current task</h2>
        <p className="tasks__muted">No task is being tracked. Start one from today's list.</p>
      </section>
    );
  // The task app reports the time spent when asked; the clock runs on from there while tracking.
  const running = (task.timeSpent ?? 0) + Math.max(0, now - fetchedAt);
  return (
    <section className="tasks__current" aria-labelledby="tasks-current">
      <h2 id="tasks-current">Current task</h2>
      <p className="tasks__current-title" data-testid="current-title">
        {task.title}
      </p>
      <p>
        <span className="tasks__muted">Tracked </span>
        <time className="tasks__clock" data-testid="current-time" aria-live="off">
          {clock(running)}
        </time>
        {task.timeEstimate ? (
          <span className="tasks__muted"> of {span(task.timeEstimate)} planned</span>
        ) : null}
      </p>
      <button type="button" onClick={onStop} disabled={busy}>
        Stop tracking
      </button>
    </section>
  );
}

function TaskRow({
  task,
  current,
  act,
  busy,
  ticked,
}: {
  task: Task;
  current: boolean;
  act: (action: Action, id: string) => void;
  busy: boolean;
  /** The box as the operator just set it, until the task app has answered. */
  ticked: boolean | undefined;
}) {
  const titleId = useId();
  const done = ticked ?? task.isDone === true;
  return (
    <li className={`tasks__row${done ? ' tasks__row--done' : ''}`} aria-labelledby={titleId}>
      <label className="tasks__done">
        <input
          type="checkbox"
          aria-label={`Done: ${task.title}`}
          checked={done}
          disabled={busy}
          onChange={() => act(done ? 'uncomplete' : 'complete', task.id)}
        />
        Done
      </label>
      <div className="tasks__what">
        <span id={titleId} className="tasks__title">
          {task.title}
        </span>
        <span className="tasks__muted">
          {span(task.timeSpent)} spent / {span(task.timeEstimate)} planned
          {current ? ' · tracking' : ''}
        </span>
        {task.notes ? <span className="tasks__notes">{task.notes}</span> : null}
      </div>
      <div className="tasks__actions">
        <button
          type="button"
          aria-label={`Start tracking: ${task.title}`}
          onClick={() => act('start', task.id)}
          disabled={busy || current || done}
        >
          Start
        </button>
        <button
          type="button"
          aria-label={`Set current: ${task.title}`}
          onClick={() => act('setCurrent', task.id)}
          disabled={busy || current || done}
        >
          Set current
        </button>
      </div>
    </li>
  );
}

function AddTask() {
  const queryClient = useQueryClient();
  const [title, setTitle] = useState('');
  const [notes, setNotes] = useState('');
  const [estimate, setEstimate] = useState('');
  const hintId = useId();
  const add = useMutation({
    mutationFn: tasksApi.create,
    onSuccess: () => {
      setTitle('');
      setNotes('');
      setEstimate('');
      return queryClient.invalidateQueries({ queryKey: ['tasks'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({
      title,
      ...(notes.trim() ? { notes } : {}),
      ...(estimate.trim() ? { timeEstimate: estimate.trim() } : {}),
    });
  };
  return (
    <section className="tasks__add" aria-labelledby="tasks-add">
      <h2 id="tasks-add">Add a task</h2>
      <form onSubmit={submit}>
        <label>
          Title
          <input value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={1000} />
        </label>
        <label>
          Notes
          <textarea value={notes} onChange={(e) => setNotes(e.target.value)} rows={2} />
        </label>
        <label>
          Estimate
          <input
            value={estimate}
            onChange={(e) => setEstimate(e.target.value)}
            aria-describedby={hintId}
            placeholder="1h30m"
            inputMode="text"
            autoComplete="off"
          />
        </label>
        <p id={hintId} className="tasks__muted tasks__hint">
          Days, hours, minutes and seconds such as 1h30m, 45m or 1d2h, or milliseconds. Leave empty for none.
        </p>
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add task'}
        </button>
        {add.isError && <Problem error={add.error} />}
        {add.isSuccess && (
          <p className="tasks__muted" role="status">
            Added “{add.data.title}”.
          </p>
        )}
      </form>
    </section>
  );
}

export default function TasksPage() {
  const queryClient = useQueryClient();
  const today = useQuery({
    queryKey: ['tasks', 'today'],
    queryFn: tasksApi.today,
    refetchInterval: REFRESH_MS,
    retry: false,
  });
  const current = useQuery({
    queryKey: ['tasks', 'current'],
    queryFn: tasksApi.current,
    refetchInterval: REFRESH_MS,
    retry: false,
  });
  // A ticked box shows ticked in the same frame as the click (a controlled checkbox whose value
  // changed only after an await would be put back by React), until the task app has answered.
  const [ticked, setTicked] = useState<Record<string, boolean>>({});
  const action = useMutation<unknown, Error, { kind: Action | 'stop'; id?: string }>({
    mutationFn: ({ kind, id }) => (kind === 'stop' ? tasksApi.stopCurrent() : tasksApi[kind](id as string)),
    // The cache follows the tick too, so the list is right once the local tick is dropped.
    onMutate: async ({ kind, id }) => {
      if (kind !== 'complete' && kind !== 'uncomplete') return;
      // A read still in flight (the last change's refresh, or the timer's) would answer with the
      // state from before this click and untick the box again.
      await queryClient.cancelQueries({ queryKey: ['tasks', 'today'] });
      queryClient.setQueryData<Task[]>(['tasks', 'today'], (tasks) =>
        tasks?.map((task) => (task.id === id ? { ...task, isDone: kind === 'complete' } : task)),
      );
    },
    onSettled: (_answer, _error, { id }) => {
      if (id !== undefined) setTicked(({ [id]: _answered, ...rest }) => rest);
      return queryClient.invalidateQueries({ queryKey: ['tasks'] });
    },
  });
  const act = (kind: Action, id: string) => {
    const tick = kind === 'complete' || kind === 'uncomplete';
    if (tick) setTicked((shown) => ({ ...shown, [id]: kind === 'complete' }));
    action.mutate({ kind, id });
  };
  const retry = () => queryClient.invalidateQueries({ queryKey: ['tasks'] });
  const currentTask = current.data ?? null;
  const busy = action.isPending;
  // One explanation when the task app cannot be reached, not one per panel.
  const failure = today.error ?? current.error;

  return (
    <section className="page tasks">
      <h1>Tasks</h1>
      <p className="tasks__muted">Today's work from the operator's task app.</p>
      {failure ? <Problem error={failure} retry={retry} /> : null}
      {action.isError && <Problem error={action.error} />}
      <div className="tasks__grid">
        <div className="tasks__side">
          {current.isSuccess && (
            <CurrentTask
              task={currentTask}
              fetchedAt={current.dataUpdatedAt}
              onStop={() => action.mutate({ kind: 'stop' })}
              busy={busy}
            />
          )}
          <AddTask />
        </div>
        <section className="tasks__today" aria-labelledby="tasks-today">
          <h2 id="tasks-today">Today</h2>
          {today.isPending && !today.isError && <p className="tasks__muted">Loading today's tasks…</p>}
          {today.isSuccess && today.data.length === 0 && (
            <p className="tasks__muted">Nothing is planned or due today.</p>
          )}
          {today.isSuccess && today.data.length > 0 && (
            <ul className="tasks__list">
              {today.data.map((task) => (
                <TaskRow
                  key={task.id}
                  task={task}
                  current={task.id === currentTask?.id}
                  busy={busy}
                  ticked={ticked[task.id]}
                  act={act}
                />
              ))}
            </ul>
          )}
        </section>
      </div>
    </section>
  );
}
