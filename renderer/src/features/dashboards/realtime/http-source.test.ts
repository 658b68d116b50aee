// The http datasource against a scripted relay on a manual clock.
import { describe, expect, it } from 'vitest';
import type { Datasource } from '../document.ts';
import { type HttpSourceIo, MintError, RELAY_PATH, startHttpSource } from './http-source.ts';
import type { SourceUpdate } from './sources.ts';

type Answer = { status: number; body: unknown } | 'network';

function harness(answers: Answer[], mints: (MintError | { token: string; lifetimeMs: number })[]) {
  let now = 1_000_000;
  const timers: { at: number; run: () => void; id: number }[] = [];
  let nextId = 1;
  const requests: { url: string; body: Record<string, unknown> }[] = [];
  const updates: SourceUpdate[] = [];
  let mintCount = 0;
  const io: HttpSourceIo = {
    fetch: async (url, init) => {
      requests.push({ url, body: JSON.parse(init.body) });
      const answer = answers.shift() ?? { status: 200, body: { body: 'default' } };
      if (answer === 'network') throw new TypeError('Failed to fetch');
      return { status: answer.status, json: async () => answer.body };
    },
    setTimeout: (run, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimeout: (handle) => {
      const i = timers.findIndex((t) => t.id === handle);
      if (i >= 0) timers.splice(i, 1);
    },
  };
  const context = {
    dashboardId: 'd1',
    shareToken: null,
    bearer: () => null,
    now: () => now,
    mint: async () => {
      mintCount += 1;
      const next = mints.shift() ?? { token: `t${mintCount}`, lifetimeMs: 300_000 };
      if (next instanceof MintError) throw next;
      return { token: next.token, expiresAt: new Date(now + next.lifetimeMs).toISOString() };
    },
  };
  const datasource: Datasource = {
    id: 'cells',
    title: 'Cells',
    type: 'http',
    settings: { url: 'http://x/', refresh: 10 },
  };
  const stop = startHttpSource(datasource, context, (u) => updates.push(u), io);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return {
    requests,
    updates,
    stop,
    get mints() {
      return mintCount;
    },
    /** Runs the timers due within `ms`, letting each poll finish. */
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        await settle();
        timers.sort((a, b) => a.at - b.at);
        const due = timers[0];
        if (!due || due.at > until) break;
        timers.shift();
        now = due.at;
        due.run();
      }
      now = until;
      await settle();
    },
    pending: () => timers.map((t) => t.at - now),
  };
}

describe('http datasources through the relay', () => {
  it('mints once, polls every refresh s after each answer, and shows updating while a value exists', async () => {
    const h = harness(
      [
        { status: 200, body: { body: { n: 1 } } },
        { status: 200, body: { body: { n: 2 } } },
      ],
      [],
    );
    await h.advance(0);
    expect(h.requests).toEqual([
      { url: RELAY_PATH, body: { sessionToken: 't1', dashboardId: 'd1', datasourceId: 'cells' } },
    ]);
    expect(h.updates.slice(0, 2)).toEqual([
      { status: 'connecting' },
      { status: 'connected', value: { n: 1 } },
    ]);
    expect(h.pending()).toEqual([10_000]);
    await h.advance(10_000);
    expect(h.requests).toHaveLength(2);
    expect(h.updates.slice(2)).toEqual([{ status: 'updating' }, { status: 'connected', value: { n: 2 } }]);
    expect(h.mints).toBe(1);
    h.stop();
  });

  it('re-mints once at once on 401, waits as told on 429, and backs off on failures within the schedule', async () => {
    const h = harness(
      [
        { status: 401, body: { error: 'Invalid session token' } },
        { status: 200, body: { body: 'ok' } },
        { status: 429, body: { error: 'Too many fetch requests for this token', retryAfterMs: 7000 } },
        { status: 502, body: { error: 'Upstream responded with status 500' } },
        'network',
        { status: 200, body: { body: 'back' } },
      ],
      [],
    );
    await h.advance(0);
    expect(h.mints).toBe(2);
    expect(h.updates.at(-1)).toEqual({ status: 'connected', value: 'ok' });
    await h.advance(10_000);
    expect(h.updates.at(-1)).toEqual({ status: 'error', message: 'Too many fetch requests for this token' });
    expect(h.pending()).toEqual([7000]);
    await h.advance(7000);
    expect(h.updates.at(-1)).toEqual({ status: 'error', message: 'Upstream responded with status 500' });
    expect(h.pending()).toEqual([1000]);
    await h.advance(1000);
    expect(h.updates.at(-1)).toEqual({
      status: 'error',
      message: 'Connection to Towpath lost; reconnecting',
    });
    expect(h.pending()).toEqual([2000]);
    await h.advance(2000);
    expect(h.updates.at(-1)).toEqual({ status: 'connected', value: 'back' });
    h.stop();
    expect(h.pending()).toEqual([]);
  });

  it('renews the token before it ends, and stops for good on a refused mint', async () => {
    const h = harness([], [{ token: 'short', lifetimeMs: 60_000 }]);
    await h.advance(0);
    await h.advance(10_000);
    await h.advance(10_000);
    // Renewal once min(60 s, half the lifetime) is left: after 30 s.
    await h.advance(10_000);
    expect(h.requests.map((r) => r.body.sessionToken)).toEqual(['short', 'short', 'short', 't2']);
    h.stop();

    const denied = harness(
      [],
      [new MintError('Datasource token denied: PUBLIC_USE_NOT_ALLOWED', 'FORBIDDEN')],
    );
    await denied.advance(0);
    expect(denied.updates.at(-1)).toEqual({
      status: 'error',
      message: 'Datasource token denied: PUBLIC_USE_NOT_ALLOWED',
    });
    expect(denied.pending()).toEqual([]);
    expect(denied.requests).toEqual([]);

    const limited = harness(
      [],
      [new MintError('Too many datasource token requests. Try again in 4 seconds.', 'TOO_MANY_REQUESTS', 4)],
    );
    await limited.advance(0);
    expect(limited.pending()).toEqual([4000]);
    await limited.advance(4000);
    expect(limited.requests).toHaveLength(1);
    limited.stop();
  });

  it('passes on a revoked stream so the page re-reads its dashboard', async () => {
    const h = harness([{ status: 403, body: { error: 'Share token is stale' } }], []);
    await h.advance(0);
    expect(h.updates.at(-1)).toEqual({ status: 'error', message: 'Share token is stale', revoked: true });
    h.stop();
  });
});
