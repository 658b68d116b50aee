// The dashboard screens in Chromium against a real core: a dashboard of 60 widgets bound to 12
// Mosquitto topics at 10 Hz each, watched for 20 s (frame times, long tasks), and opening it from
// the list. Figures, targets and method: scripts/bench/README.md.
import { startLiveStack } from '../support/live-stack.ts';
import type { Bench } from '../support/report.ts';

const EMAIL = 'bench-ui@towpath.test';
const PASSWORD = 'Bench-passw0rd!x';
const SOURCES = 12;
const WIDGETS = 60;
const WATCH_MS = 20_000;
const OPENS = 7;
const HZ = 10;
const topic = (i: number) => `shop/bench/${i}`;

function benchDashboard(brokerProfileId: string) {
  const datasources = Array.from({ length: SOURCES }, (_, i) => ({
    id: `m${i}`,
    title: `Sensor ${i}`,
    type: 'mqtt',
    settings: { brokerProfileId, topic: topic(i), qos: 0, parser: 'json' },
  }));
  const kinds = [
    (_i: number, ds: string) => ({
      type: 'text',
      settings: { valuePath: `datasources.${ds}.v`, precision: 0 },
    }),
    (_i: number, ds: string) => ({
      type: 'gauge',
      settings: { valuePath: `datasources.${ds}.v`, min: 0, max: 1e6, precision: 0 },
    }),
    (_i: number, ds: string) => ({
      type: 'sparkline',
      settings: { valuePath: `datasources.${ds}.v`, historyLength: 100 },
    }),
    (i: number, ds: string) => ({
      type: 'text',
      settings: { valueTemplate: `{{ datasources.${ds}.at }} #${i}` },
    }),
    (_i: number, ds: string) => ({ type: 'indicator', settings: { valuePath: `datasources.${ds}.v` } }),
  ];
  const panes = Array.from({ length: 12 }, (_, p) => ({
    id: `p${p}`,
    title: `Pane ${p}`,
    layout: { x: (p % 4) * 3, y: Math.floor(p / 4) * 4, w: 3, h: 4 },
    widgets: Array.from({ length: WIDGETS / 12 }, (_, k) => {
      const i = p * (WIDGETS / 12) + k;
      const make = kinds[i % kinds.length] as (i: number, ds: string) => Record<string, unknown>;
      return { id: `w${i}`, title: `Widget ${i}`, ...make(i, `m${i % SOURCES}`) };
    }),
  }));
  return {
    title: 'Bench board',
    version: 'bench',
    columns: 12,
    width: 'full',
    datasources,
    panes,
    settings: {},
  };
}

async function gql(url: string, query: string, variables: Record<string, unknown>, token?: string) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as {
    data?: Record<string, { token?: string; _id?: string }>;
    errors?: unknown;
  };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data ?? {};
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] as number;
}

export const bench: Bench = async (report) => {
  const stack = await startLiveStack({ email: EMAIL, password: PASSWORD });
  const { browser, publisher, lan } = stack;
  let ticking: NodeJS.Timeout | undefined;
  try {
    const signedIn = await gql(
      lan,
      'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }',
      {
        e: EMAIL,
        p: PASSWORD,
      },
    );
    const token = signedIn.authUser?.token as string;
    const profile = await gql(
      lan,
      'mutation($i: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $i) { _id } }',
      { i: { name: 'Bench broker', brokerUrl: stack.brokerUrl, topicAllowlist: ['shop/#'] } },
      token,
    );
    await gql(
      lan,
      'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id } }',
      { i: benchDashboard(profile.adminCreateBrokerProfile?._id as string) },
      token,
    );
    // Each topic holds a retained value from the start (a page that opens shows it at once), then
    // takes a new one every 100 ms.
    let tick = 0;
    const publishAll = (retain: boolean) => {
      tick += 1;
      const at = new Date().toISOString();
      for (let i = 0; i < SOURCES; i++)
        publisher.publish(topic(i), JSON.stringify({ v: tick * SOURCES + i, at }), { qos: 0, retain });
    };
    publishAll(true);
    ticking = setInterval(() => publishAll(false), 1000 / HZ);

    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    await context.addInitScript((session) => localStorage.setItem('towpath.session', session), token);
    const page = await context.newPage();

    // Open from the list until every widget shows a value.
    const openTimes: number[] = [];
    // Back to the list as a person goes, by the app's own navigation (a reload each time would mint
    // 12 tokens per open and meet the per-user mint limit of 60 a minute by the fifth).
    await page.goto(`${lan}/dashboards`);
    for (let run = 0; run < OPENS; run++) {
      if (run > 0) await page.getByRole('navigation').getByRole('link', { name: 'Dashboards' }).click();
      const link = page.getByRole('link', { name: 'Bench board' });
      await link.waitFor();
      const started = await page.evaluate(() => performance.now());
      await link.click();
      await page.waitForFunction(
        (count) =>
          document.querySelectorAll('.widget').length === count && !document.body.textContent?.includes('—'),
        WIDGETS,
        { polling: 'raf', timeout: 10_000 },
      );
      openTimes.push((await page.evaluate(() => performance.now())) - started);
    }
    openTimes.sort((a, b) => a - b);
    report('dashboards-ui.open-from-list.median', 'ms', percentile(openTimes, 0.5), 500);
    report('dashboards-ui.open-from-list.worst', 'ms', openTimes.at(-1) as number, 500);

    // 20 s of updates: frame intervals and long tasks.
    const figures = await page.evaluate(async (watchMs) => {
      const frames: number[] = [];
      let longest = 0;
      let longTasks = 0;
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          longest = Math.max(longest, entry.duration);
          if (entry.duration > 50) longTasks += 1;
        }
      });
      observer.observe({ type: 'longtask' });
      // Proof the load is real: how often one gauge (bound to one topic) shows a new value.
      const gauge = document.querySelector('[data-widget-id="w1"] .widget-gauge__text');
      let gaugeChanges = 0;
      const mutations = new MutationObserver(() => {
        gaugeChanges += 1;
      });
      if (gauge) mutations.observe(gauge, { childList: true, characterData: true, subtree: true });
      await new Promise<void>((resolve) => {
        let last = performance.now();
        const end = last + watchMs;
        const step = (now: number) => {
          frames.push(now - last);
          last = now;
          if (now < end) requestAnimationFrame(step);
          else resolve();
        };
        requestAnimationFrame(step);
      });
      observer.disconnect();
      mutations.disconnect();
      return { frames, longest, longTasks, gaugeChanges };
    }, WATCH_MS);
    const sorted = [...figures.frames].sort((a, b) => a - b);
    report('dashboards-ui.60-widgets-12x10Hz.frame.median', 'ms', percentile(sorted, 0.5), null);
    report('dashboards-ui.60-widgets-12x10Hz.frame.p99', 'ms', percentile(sorted, 0.99), null);
    report('dashboards-ui.60-widgets-12x10Hz.longest-task', 'ms', figures.longest, 50);
    report('dashboards-ui.60-widgets-12x10Hz.tasks-over-50ms', 'count', figures.longTasks, 0);
    report(
      'dashboards-ui.60-widgets-12x10Hz.one-widget-updates',
      '1/s',
      figures.gaugeChanges / (WATCH_MS / 1000),
      HZ,
    );
    await context.close();
  } finally {
    clearInterval(ticking);
    await stack.stop();
  }
};
