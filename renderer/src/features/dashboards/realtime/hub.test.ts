// The datasource hub on a manual clock: static and clock values, staleness, live sources plugged in,
// revocation, and disabled datasources never started.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DatasourceHub, UNSAVED } from './hub.ts';
import { type SourceFactory, setLiveSourceFactory } from './sources.ts';

let now = 0;
const context = {
  dashboardId: 'd1',
  shareToken: null,
  bearer: () => null,
  now: () => now,
  mint: async () => ({ token: 't', expiresAt: '' }),
};

beforeEach(() => {
  vi.useFakeTimers();
  now = Date.parse('2025-03-01T08:15:30.125Z');
});
afterEach(() => vi.useRealTimers());

function advance(ms: number) {
  now += ms;
  vi.advanceTimersByTime(ms);
}

describe('DatasourceHub', () => {
  it('gives static values at once and clock values every tick', () => {
    const hub = new DatasourceHub(context);
    hub.setDatasources([
      { id: 'notes', title: 'Notes', type: 'static', settings: { value: { text: 'hi' } } },
      { id: 'clock', title: 'Clock', type: 'clock', settings: { refresh: 2 } },
      { id: 'off', title: 'Off', type: 'static', enabled: false, settings: { value: 1 } },
    ]);
    const first = hub.getSnapshot();
    expect(first.states.get('notes')).toMatchObject({
      status: 'connected',
      hasValue: true,
      value: { text: 'hi' },
    });
    expect(first.states.get('clock')?.value).toMatchObject({ iso: '2025-03-01T08:15:30.125Z' });
    expect(first.states.get('off')).toMatchObject({ enabled: false, hasValue: false });
    advance(2000);
    advance(20); // one frame for the snapshot
    expect(hub.getSnapshot().states.get('clock')?.value).toMatchObject({ iso: '2025-03-01T08:15:32.125Z' });
    expect(hub.getSnapshot().states.get('clock')?.sequence).toBe(2);
    hub.stop();
  });

  it('marks a value stale after staleAfterSeconds without news, keeping it', () => {
    const hub = new DatasourceHub(context);
    hub.setDatasources([
      { id: 's', title: 'S', type: 'static', settings: { value: 5, staleAfterSeconds: 3 } },
    ]);
    advance(2500);
    expect(hub.getSnapshot().states.get('s')?.status).toBe('connected');
    advance(1600);
    advance(20);
    expect(hub.getSnapshot().states.get('s')).toMatchObject({ status: 'stale', value: 5 });
    hub.stop();
  });

  it("shows a changed static value and a changed clock's first tick at once", () => {
    const hub = new DatasourceHub(context);
    hub.setDatasources([
      { id: 'notes', title: 'Notes', type: 'static', settings: { value: 'old' } },
      { id: 'clock', title: 'Clock', type: 'clock', settings: { refresh: 2 } },
    ]);
    hub.setDatasources([
      { id: 'notes', title: 'Notes', type: 'static', settings: { value: 'new' } },
      { id: 'clock', title: 'Clock', type: 'clock', settings: { refresh: 5 } },
    ]);
    expect(hub.getSnapshot().states.get('notes')).toMatchObject({
      status: 'connected',
      hasValue: true,
      value: 'new',
    });
    expect(hub.getSnapshot().states.get('clock')).toMatchObject({ status: 'connected', sequence: 1 });
    hub.stop();
  });

  it('drops what a replaced or removed run still reports', () => {
    const emits: ((u: { value: unknown }) => void)[] = [];
    const previous = setLiveSourceFactory((_ds, _ctx, e) => {
      emits.push(e);
      return () => {};
    });
    try {
      const hub = new DatasourceHub(context);
      hub.setDatasources([{ id: 'm', title: 'M', type: 'mqtt', settings: { topic: 'a' } }]);
      hub.setDatasources([{ id: 'm', title: 'M', type: 'mqtt', settings: { topic: 'b' } }]);
      // Back to the first settings: a third run, which the first may not speak for.
      hub.setDatasources([{ id: 'm', title: 'M', type: 'mqtt', settings: { topic: 'a' } }]);
      emits[0]?.({ value: 'from the first run' });
      emits[1]?.({ value: 'from the second run' });
      advance(20);
      expect(hub.getSnapshot().states.get('m')?.hasValue).toBe(false);
      emits[2]?.({ value: 'from the third run' });
      advance(20);
      expect(hub.getSnapshot().states.get('m')?.value).toBe('from the third run');
      hub.setDatasources([]);
      emits[2]?.({ value: 'after removal' });
      advance(20);
      expect(hub.getSnapshot().states.has('m')).toBe(false);
      hub.stop();
    } finally {
      setLiveSourceFactory(previous);
    }
  });

  it('holds an unsaved live datasource in the editor and starts it once saved as it stands', () => {
    const starts: string[] = [];
    const previous = setLiveSourceFactory((ds, _ctx, e) => {
      starts.push(JSON.stringify(ds.settings));
      e({ status: 'connected', value: 'live' });
      return () => {};
    });
    try {
      const hub = new DatasourceHub(context);
      const note = { id: 'n', title: 'N', type: 'static', settings: { value: 1 } };
      const added = { id: 'm', title: 'M', type: 'mqtt', settings: { topic: 'a' } };
      hub.setDatasources([note, added], [note]);
      expect(starts).toEqual([]);
      expect(hub.getSnapshot().states.get('m')).toMatchObject({ status: 'error', message: UNSAVED });
      // Static and clock sources run in the page, saved or not.
      expect(hub.getSnapshot().states.get('n')).toMatchObject({ status: 'connected', value: 1 });
      // Saved: the stored copy comes back from the server with its keys in another order.
      hub.setDatasources(
        [note, added],
        [note, { settings: { topic: 'a' }, type: 'mqtt', title: 'M', id: 'm' }],
      );
      expect(starts).toEqual(['{"topic":"a"}']);
      advance(20);
      expect(hub.getSnapshot().states.get('m')).toMatchObject({ status: 'connected', value: 'live' });
      // Edited but not saved: held again rather than streaming the stored definition.
      hub.setDatasources([note, { ...added, settings: { topic: 'b' } }], [note, added]);
      expect(starts).toHaveLength(1);
      expect(hub.getSnapshot().states.get('m')?.message).toBe(UNSAVED);
      hub.stop();
    } finally {
      setLiveSourceFactory(previous);
    }
  });

  it('coalesces bursts into one snapshot per frame and keeps unchanged sources running', () => {
    const emitter: { emit: (u: { value: unknown }) => void } = { emit: () => {} };
    const starts: string[] = [];
    const factory: SourceFactory = (ds, _ctx, e) => {
      starts.push(ds.id);
      emitter.emit = e;
      e({ status: 'connected' });
      return () => {};
    };
    const previous = setLiveSourceFactory(factory);
    try {
      const hub = new DatasourceHub(context);
      const listener = vi.fn();
      hub.subscribe(listener);
      const sources = [{ id: 'm', title: 'M', type: 'mqtt', settings: { topic: 'a' } }];
      hub.setDatasources(sources);
      listener.mockClear();
      for (let i = 1; i <= 10; i++) emitter.emit({ value: i });
      expect(listener).not.toHaveBeenCalled();
      advance(20);
      expect(listener).toHaveBeenCalledTimes(1);
      expect(hub.getSnapshot().states.get('m')).toMatchObject({ value: 10, sequence: 10 });
      hub.setDatasources([{ id: 'm', title: 'Renamed', type: 'mqtt', settings: { topic: 'a' } }]);
      expect(starts).toEqual(['m']);
      expect(hub.getSnapshot().states.get('m')?.title).toBe('Renamed');
      hub.setDatasources([{ id: 'm', title: 'Renamed', type: 'mqtt', settings: { topic: 'b' } }]);
      expect(starts).toEqual(['m', 'm']);
      hub.stop();
    } finally {
      setLiveSourceFactory(previous);
    }
  });

  it('says plainly that gateway datasources wait for the gateway client, and passes on revocations', () => {
    const hub = new DatasourceHub(context);
    hub.setDatasources([{ id: 'w', title: 'Winder', type: 'machine', settings: {} }]);
    expect(hub.getSnapshot().states.get('w')).toMatchObject({ status: 'error' });
    expect(hub.getSnapshot().states.get('w')?.message).toMatch(/realtime gateway/);
    hub.stop();

    const revoked = vi.fn();
    const previous = setLiveSourceFactory((_ds, _ctx, e) => {
      e({ status: 'error', message: 'Share token is stale', revoked: true });
      return () => {};
    });
    try {
      const again = new DatasourceHub(context);
      again.setRevokedHandler(revoked);
      again.setDatasources([{ id: 'w', title: 'Winder', type: 'machine', settings: {} }]);
      expect(revoked).toHaveBeenCalledTimes(1);
      again.stop();
    } finally {
      setLiveSourceFactory(previous);
    }
  });
});
