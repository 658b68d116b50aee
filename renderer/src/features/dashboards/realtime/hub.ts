// The running datasources of one open dashboard and their current values and statuses. Widgets read
// one immutable snapshot; updates arriving close together (12 sources at 10 Hz) are coalesced into
// one snapshot per frame so the view re-renders at most that often.
import type { DatasourceValues } from '../bindings.ts';
import type { Datasource } from '../document.ts';
import {
  type DatasourceStatus,
  type SourceContext,
  type SourceUpdate,
  staleAfterSeconds,
  startSource,
} from './sources.ts';

export interface DatasourceState {
  id: string;
  title: string;
  type: string;
  enabled: boolean;
  status: DatasourceStatus;
  hasValue: boolean;
  value: unknown;
  message: string | null;
  /** When the last value arrived (context clock), for staleness. */
  valueAt: number | null;
  /** Counts values, so history widgets append once per update. */
  sequence: number;
}

export interface HubSnapshot extends DatasourceValues {
  states: ReadonlyMap<string, DatasourceState>;
}

const EMPTY: HubSnapshot = { states: new Map(), byId: new Map() };

function snapshotOf(states: Map<string, DatasourceState>): HubSnapshot {
  return { states: new Map(states), byId: new Map(states) };
}

/** Types that run in the page itself; every other type needs the stored document (mint, gateway). */
const RUN_IN_PAGE = new Set(['static', 'clock']);
export const UNSAVED = 'Save the dashboard to connect this datasource';

/** Equal as JSON values, whatever the order of object keys. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    keysA.length === keysB.length &&
    keysA.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** One start of one datasource; only the stored run of a datasource may report. */
interface Run {
  signature: string;
  stop: () => void;
}

export class DatasourceHub {
  #states = new Map<string, DatasourceState>();
  #stops = new Map<string, Run>();
  #snapshot: HubSnapshot = EMPTY;
  #listeners = new Set<() => void>();
  #flushTimer: ReturnType<typeof setTimeout> | null = null;
  #staleTimer: ReturnType<typeof setInterval> | null = null;
  #onRevoked: (() => void) | null = null;

  readonly #context: SourceContext;

  constructor(context: SourceContext) {
    this.#context = context;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = (): HubSnapshot => this.#snapshot;

  /** Called when a stream is revoked, so the page re-reads its dashboard (§7.2). */
  setRevokedHandler(handler: (() => void) | null): void {
    this.#onRevoked = handler;
  }

  /**
   * Runs exactly the given datasources: new and changed ones (re)start, removed ones stop, unchanged
   * ones keep running with their value. Disabled ones are known (bindings say so) but never started.
   * With `saved` (the editor's stored document), a datasource that streams through the workstation
   * is held until it is saved as it stands: the gateway serves only stored definitions, so it would
   * refuse an unsaved one (DATASOURCE_NOT_FOUND) or stream the old one; it starts once saved.
   */
  setDatasources(datasources: readonly Datasource[], saved?: readonly Datasource[]): void {
    const keep = new Set<string>();
    for (const ds of datasources) {
      keep.add(ds.id);
      const enabled = ds.enabled !== false;
      const held =
        saved !== undefined &&
        enabled &&
        !RUN_IN_PAGE.has(ds.type) &&
        !sameJson(
          ds,
          saved.find((s) => s.id === ds.id),
        );
      const signature = JSON.stringify([ds.type, ds.settings ?? {}, enabled, held]);
      const running = this.#stops.get(ds.id);
      const previous = this.#states.get(ds.id);
      if (running?.signature === signature && previous) {
        this.#states.set(ds.id, { ...previous, title: ds.title });
        continue;
      }
      running?.stop();
      // The new run is stored before it starts: a static source reports its one value, and a clock
      // its first tick, synchronously from startSource, and reports from any other run are dropped.
      const run = { signature, stop: () => {} };
      this.#stops.set(ds.id, run);
      this.#states.set(ds.id, {
        id: ds.id,
        title: ds.title,
        type: ds.type,
        enabled,
        status: 'connecting',
        hasValue: false,
        value: undefined,
        message: null,
        valueAt: null,
        sequence: 0,
      });
      if (!enabled) continue;
      if (held) {
        this.#apply(ds.id, run, 0, { status: 'error', message: UNSAVED });
        continue;
      }
      run.stop = startSource(ds, this.#context, (update) =>
        this.#apply(ds.id, run, staleAfterSeconds(ds), update),
      );
    }
    for (const [id, running] of this.#stops)
      if (!keep.has(id)) {
        running.stop();
        this.#stops.delete(id);
        this.#states.delete(id);
      }
    this.#staleTimer ??= setInterval(() => this.#checkStale(), 1000);
    this.#flush();
  }

  #staleLimits = new Map<string, number>();

  #apply(id: string, run: Run, staleAfter: number, update: SourceUpdate): void {
    // A stopped source may still report once; its datasource may have been replaced or removed.
    if (this.#stops.get(id) !== run) return;
    const state = this.#states.get(id);
    if (!state) return;
    this.#staleLimits.set(id, staleAfter);
    const next: DatasourceState = { ...state };
    if ('value' in update) {
      next.value = update.value;
      next.hasValue = true;
      next.valueAt = this.#context.now();
      next.sequence = state.sequence + 1;
      next.status = update.status ?? 'connected';
      next.message = update.message ?? null;
    } else if (update.status) {
      next.status = update.status;
      next.message = update.message ?? null;
    }
    this.#states.set(id, next);
    if (update.revoked) this.#onRevoked?.();
    this.#schedule();
  }

  #checkStale(): void {
    const now = this.#context.now();
    let changed = false;
    for (const [id, state] of this.#states) {
      const limit = this.#staleLimits.get(id) ?? 0;
      if (
        limit > 0 &&
        state.status === 'connected' &&
        state.valueAt !== null &&
        now - state.valueAt > limit * 1000
      ) {
        this.#states.set(id, { ...state, status: 'stale' });
        changed = true;
      }
    }
    if (changed) this.#schedule();
  }

  #schedule(): void {
    if (this.#flushTimer !== null) return;
    this.#flushTimer = setTimeout(() => this.#flush(), 16);
  }

  #flush(): void {
    if (this.#flushTimer !== null) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    this.#snapshot = snapshotOf(this.#states);
    for (const listener of [...this.#listeners]) listener();
  }

  stop(): void {
    for (const running of this.#stops.values()) running.stop();
    this.#stops.clear();
    if (this.#staleTimer !== null) clearInterval(this.#staleTimer);
    if (this.#flushTimer !== null) clearTimeout(this.#flushTimer);
    this.#staleTimer = null;
    this.#flushTimer = null;
  }
}
