// Test and benchmark support: a dashboard fed by a real MQTT broker, and the time from publishing a
// value to a widget showing it in a real page. The e2e spec checks that values arrive; the
// benchmark reports how fast (`dashboards-live.mqtt-publish-to-widget`: within 1 s).
import type { Page } from '@playwright/test';
import { gql } from './graphql.ts';

export const LIVE_TOPIC = 'shop/resin/temp';
export const LIVE_WIDGET = { id: 'w_temp', title: 'Resin temperature' };

/** A LINK dashboard (as `token`'s user) with one `mqtt` datasource on `brokerUrl` and one text widget. */
export async function createMqttDashboard(
  url: string,
  token: string,
  brokerUrl: string,
): Promise<{ dashboardId: string; shareToken: string }> {
  const call = async <T>(query: string, variables: Record<string, unknown>, field: string): Promise<T> => {
    const answer = await gql<Record<string, T>>(url, query, { token, variables });
    const data = answer.data?.[field];
    if (!data || answer.errors) throw new Error(`${field} failed: ${answer.raw}`);
    return data;
  };
  const profile = await call<{ _id: string }>(
    'mutation($i: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $i) { _id } }',
    { i: { name: 'Shop broker', brokerUrl, allowPublicUse: true, topicAllowlist: ['shop/#'] } },
    'adminCreateBrokerProfile',
  );
  const board = await call<{ _id: string; shareToken: string }>(
    'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }',
    {
      i: {
        title: 'Resin line',
        version: 'towpath 0.1.0',
        visibility: 'LINK',
        datasources: [
          {
            id: 'resin',
            title: 'Resin',
            type: 'mqtt',
            settings: { brokerProfileId: profile._id, topic: LIVE_TOPIC, qos: 0, parser: 'json' },
          },
        ],
        panes: [
          {
            id: 'bath',
            title: 'Bath',
            layout: { x: 0, y: 0, w: 1, h: 2 },
            widgets: [
              {
                id: LIVE_WIDGET.id,
                type: 'text',
                title: LIVE_WIDGET.title,
                settings: { valuePath: 'Resin.celsius', unitText: '°C', precision: 1 },
              },
            ],
          },
        ],
      },
    },
    'createDashboard',
  );
  return { dashboardId: board._id, shareToken: board.shareToken };
}

/** How the widget shows `celsius`. */
export const shownAs = (celsius: number) => `${celsius.toFixed(1)} °C`;

/**
 * Milliseconds from `publish()` until the widget's text contains `expected`, checked every frame in
 * the page (the page is watching before the value is published).
 */
export async function delayUntilShown(
  page: Page,
  widgetId: string,
  expected: string,
  publish: () => Promise<void>,
): Promise<number> {
  const shown = page.waitForFunction(
    ([id, text]) => document.querySelector(`[data-widget-id="${id}"]`)?.textContent?.includes(text) === true,
    [widgetId, expected] as const,
    { polling: 'raf', timeout: 20_000 },
  );
  const started = performance.now();
  await publish();
  await shown;
  return performance.now() - started;
}
