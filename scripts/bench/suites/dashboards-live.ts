// A value published to a real Mosquitto until a signed-in viewer's widget shows it in Chromium,
// the whole way through the realtime gateway and the page's datasource hub. Values are published
// one at a time, each once the previous one is on screen. Targets: scripts/bench/README.md.
import { gql } from '../../../server/testing/graphql.ts';
import {
  createMqttDashboard,
  delayUntilShown,
  LIVE_TOPIC,
  LIVE_WIDGET,
  shownAs,
} from '../../../server/testing/live-dashboard.ts';
import { startLiveStack } from '../support/live-stack.ts';
import type { Bench } from '../support/report.ts';

const EMAIL = 'bench-live@towpath.test';
const PASSWORD = 'Bench-passw0rd!x';
const SAMPLES = 40;

export const bench: Bench = async (report) => {
  const stack = await startLiveStack({ email: EMAIL, password: PASSWORD });
  const { browser, publisher, lan } = stack;
  try {
    const signedIn = await gql<{ authUser: { token: string } }>(
      lan,
      'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }',
      { variables: { e: EMAIL, p: PASSWORD } },
    );
    const token = signedIn.data?.authUser.token;
    if (!token) throw new Error(signedIn.raw);
    const board = await createMqttDashboard(lan, token, stack.brokerUrl);
    await publisher.publishAsync(LIVE_TOPIC, JSON.stringify({ celsius: 0 }), { qos: 1, retain: true });

    const context = await browser.newContext();
    await context.addInitScript((session) => localStorage.setItem('towpath.session', session), token);
    const page = await context.newPage();
    await page.goto(`${lan}/dashboards/${board.dashboardId}`);
    await page.waitForFunction(
      ([id, text]) => document.querySelector(`[data-widget-id="${id}"]`)?.textContent?.includes(text),
      [LIVE_WIDGET.id, shownAs(0)] as const,
      { timeout: 30_000 },
    );
    const delays: number[] = [];
    for (let i = 1; i <= SAMPLES; i += 1)
      delays.push(
        await delayUntilShown(page, LIVE_WIDGET.id, shownAs(i), async () => {
          await publisher.publishAsync(LIVE_TOPIC, JSON.stringify({ celsius: i }), { qos: 0 });
        }),
      );
    delays.sort((a, b) => a - b);
    report(
      'dashboards-live.mqtt-publish-to-widget.median',
      'ms',
      delays[Math.floor(SAMPLES / 2)] as number,
      1000,
    );
    report('dashboards-live.mqtt-publish-to-widget.worst', 'ms', delays.at(-1) as number, 1000);
    await context.close();
  } finally {
    await stack.stop();
  }
};
