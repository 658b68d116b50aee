// The document rules of dashboard-document.md §1.1: order and exact messages, limits, bindings and the
// trusted-content signatures of API §8.9.
import { describe, expect, it } from 'vitest';
import { addsTrustedContent, DocumentError, validateDocument } from './document.ts';

const base = {
  title: 'Winder',
  version: 'towpath 0.1.0',
  image: null,
  datasources: [] as unknown[],
  columns: 3,
  width: 'md',
  panes: [] as unknown[],
  settings: {} as Record<string, unknown>,
};

function problem(changes: Partial<typeof base> | Record<string, unknown>): string | null {
  try {
    validateDocument({ ...base, ...changes } as Parameters<typeof validateDocument>[0]);
    return null;
  } catch (error) {
    if (error instanceof DocumentError) return error.message;
    throw error;
  }
}

const pane = (id: string, layout: Record<string, unknown>, widgets: unknown[] = []) => ({
  id,
  title: '',
  layout,
  widgets,
});
const at = (x: number, y: number, w = 1, h = 1) => ({ x, y, w, h });

describe('validateDocument', () => {
  it('accepts the complete example of dashboard-document.md §10', () => {
    expect(
      problem({
        width: 'lg',
        datasources: [
          { id: 'winder', title: 'Winder', type: 'machine', settings: {} },
          {
            id: 'resin',
            title: 'Resin bath',
            type: 'mqtt',
            settings: {
              brokerProfileId: '67c2a1b0e3f4a5b6c7d8e9f0',
              topic: 'shop/winder1/resin',
              qos: 1,
              parser: 'json',
              staleAfterSeconds: 120,
            },
          },
          {
            id: 'cells',
            title: 'Cells',
            type: 'http',
            settings: { url: 'http://192.168.10.20:8080/api/cells', timeoutMs: 5000, refresh: 10 },
          },
          { id: 'clock', title: 'Clock', type: 'clock', settings: { refresh: 1 } },
          { id: 'notes', title: 'Notes', type: 'static', settings: { value: { shift: 'B' } } },
        ],
        panes: [
          pane('job', at(0, 0, 2, 4), [
            {
              id: 'w_job',
              type: 'text',
              title: 'Job',
              settings: { valueTemplate: '{{ Winder.jobName }} ({{ Winder.jobState }})' },
            },
            {
              id: 'w_progress',
              type: 'gauge',
              settings: {
                valuePath: 'datasources.winder.percent',
                min: 0,
                max: 100,
                precision: 1,
                unitText: '%',
              },
            },
            {
              id: 'w_remaining',
              type: 'text',
              settings: { valuePath: 'Winder.remainingSeconds', format: 'duration' },
            },
          ]),
          pane('machine', at(2, 0, 1, 4), [
            {
              id: 'w_connected',
              type: 'indicator',
              settings: { valuePath: 'Winder.connected', onText: 'Connected' },
            },
          ]),
          pane('resin', at(0, 4, 1, 3), [
            {
              id: 'w_resin',
              type: 'sparkline',
              settings: { valuePath: '["Resin bath"].temperature', historyLength: 300 },
            },
          ]),
          pane('cells', at(1, 4, 2, 3), [
            {
              id: 'w_cells',
              type: 'status-list',
              settings: {
                valuePath: 'Cells.machines',
                labelField: 'name',
                valueField: 'state',
                statusField: 'health',
              },
            },
          ]),
          pane('notes', at(0, 7, 3, 2), [
            { id: 'w_notes', type: 'html', settings: { mode: 'text', htmlPath: 'Notes.text' } },
          ]),
        ],
        settings: { theme: 'dark' },
      }),
    ).toBeNull();
  });

  it.each([
    [{ title: '' }, 'title must be 1–200 characters'],
    [{ title: 'x'.repeat(201) }, 'title must be 1–200 characters'],
    [{ version: '' }, 'version must be 1–64 characters'],
    [{ image: 'ftp://x' }, 'image must be null or an http(s) or data:image URL of at most 262144 characters'],
    [{ columns: 13 }, 'columns must be an integer from 1 to 12'],
    [{ columns: 2.5 }, 'columns must be an integer from 1 to 12'],
    [{ width: 'x'.repeat(17) }, 'width must be 1–16 characters'],
    [
      { datasources: Array.from({ length: 51 }, (_, i) => ({ id: `d${i}`, title: `d${i}`, type: 'clock' })) },
      'A dashboard can have at most 50 datasources',
    ],
    [
      { panes: Array.from({ length: 101 }, (_, i) => pane(`p${i}`, at(0, i))) },
      'A dashboard can have at most 100 panes',
    ],
    [
      {
        panes: [
          pane(
            'p',
            at(0, 0),
            Array.from({ length: 51 }, (_, i) => ({ id: `w${i}`, type: 'text' })),
          ),
        ],
      },
      'A pane can have at most 50 widgets',
    ],
    [
      {
        panes: Array.from({ length: 7 }, (_, p) =>
          pane(
            `p${p}`,
            at(0, p),
            Array.from({ length: 50 }, (_, i) => ({ id: `w${p}_${i}`, type: 'text' })),
          ),
        ),
      },
      'A dashboard can have at most 300 widgets',
    ],
    [
      { settings: { deep: JSON.parse(`${'{"a":'.repeat(32)}1${'}'.repeat(32)}`) } },
      'Dashboard document is nested deeper than 32 levels',
    ],
    [{ settings: { big: 'x'.repeat(1_048_576) } }, 'Dashboard document exceeds 1048576 bytes'],
    [
      { datasources: [{ id: 'a', title: 'A', type: 'json' }] },
      'Invalid datasource at index 0: type must be one of http, sse, websocket, mqtt, static, clock, machine',
    ],
    [
      { datasources: [{ id: 'a b', title: 'A', type: 'clock' }] },
      'Invalid datasource at index 0: id must match [A-Za-z0-9_-]{1,64}',
    ],
    [
      { datasources: [{ id: 'a', title: 'A', type: 'clock', extra: 1 }] },
      'Invalid datasource at index 0: unknown field extra',
    ],
    [
      {
        datasources: [
          { id: 'a', title: 'A', type: 'clock' },
          { id: 'a', title: 'B', type: 'clock' },
        ],
      },
      'Invalid datasource at index 1: duplicate id a',
    ],
    [
      {
        datasources: [
          { id: 'a', title: 'A', type: 'clock' },
          { id: 'b', title: ' a ', type: 'clock' },
        ],
      },
      'Invalid datasource at index 1: duplicate title a',
    ],
    [
      { datasources: [{ id: 'a', title: 'Datasources', type: 'clock' }] },
      'Invalid datasource at index 0: title must not be "datasources"',
    ],
    [
      { datasources: [{ id: 'a', title: 'A', type: 'http', settings: {} }] },
      'Invalid datasource at index 0: settings.url is required',
    ],
    [
      { datasources: [{ id: 'a', title: 'A', type: 'http', settings: { url: 'file:///etc' } }] },
      'Invalid datasource at index 0: settings.url must be an http(s) URL',
    ],
    [
      { datasources: [{ id: 'a', title: 'A', type: 'http', settings: { url: 'http://x', timeoutMs: 999 } }] },
      'Invalid datasource at index 0: settings.timeoutMs must be an integer from 1000 to 60000',
    ],
    [
      { datasources: [{ id: 'a', title: 'A', type: 'http', settings: { url: 'http://x', method: 'HEAD' } }] },
      'Invalid datasource at index 0: settings.method must be one of GET, POST, PUT, PATCH, DELETE',
    ],
    [
      {
        datasources: [
          { id: 'a', title: 'A', type: 'sse', settings: { url: 'http://x', authPlacement: 'query' } },
        ],
      },
      'Invalid datasource at index 0: settings.queryParamName is required',
    ],
    [
      {
        datasources: [
          { id: 'a', title: 'A', type: 'mqtt', settings: { brokerProfileId: 'b', topic: 'a/#/b' } },
        ],
      },
      'Invalid datasource at index 0: settings.topic must be a valid MQTT topic filter',
    ],
    [
      {
        datasources: [
          { id: 'a', title: 'A', type: 'mqtt', settings: { brokerProfileId: 'b', topic: 'a', qos: 2 } },
        ],
      },
      'Invalid datasource at index 0: settings.qos must be one of 0, 1',
    ],
    [
      { datasources: [{ id: 'a', title: 'A', type: 'clock', enabled: 'yes' }] },
      'Invalid datasource at index 0: enabled must be a boolean',
    ],
    [
      { datasources: [{ id: 'a', title: 'A', type: 'static', settings: { staleAfterSeconds: -1 } }] },
      'Invalid datasource at index 0: settings.staleAfterSeconds must be an integer from 0 to 86400',
    ],
    [{ panes: [pane('p', { x: 0, y: 0, w: 1, h: 1, i: 'p' })] }, 'Invalid pane at index 0: unknown field i'],
    [{ panes: [pane('p', at(2, 0, 2))] }, 'Invalid pane at index 0: layout does not fit in 3 columns'],
    [{ panes: [pane('p', at(0, 0, 2, 2)), pane('q', at(1, 1))] }, 'Invalid pane at index 1: overlaps pane p'],
    [{ panes: [pane('p', at(0, 0)), pane('p', at(1, 0))] }, 'Invalid pane at index 1: duplicate id p'],
    [{ panes: [pane('p', { x: 0, y: 0, w: 1 })] }, 'Invalid pane at index 0: layout.h is required'],
    [
      { panes: [pane('p', at(0, 0), [{ id: 'w', type: 'video' }])] },
      'Invalid widget at pane 0 index 0: type must be one of text, gauge, indicator, sparkline, table, bar-chart, status-list, picture, html, base',
    ],
    [
      {
        panes: [
          pane('p', at(0, 0), [
            { id: 'w', type: 'text' },
            { id: 'w', type: 'text' },
          ]),
        ],
      },
      'Invalid widget at pane 0 index 1: duplicate id w',
    ],
    [
      { panes: [pane('p', at(0, 0), [{ id: 'w', type: 'text', settings: { valuePath: 'a..b' } }])] },
      'Invalid widget at pane 0 index 0: settings.valuePath is not a valid binding path',
    ],
    [
      { panes: [pane('p', at(0, 0), [{ id: 'w', type: 'text', settings: { valueTemplate: '{{ a b }}' } }])] },
      'Invalid widget at pane 0 index 0: settings.valueTemplate is not a valid binding path',
    ],
    [
      { panes: [pane('p', at(0, 0), [{ id: 'w', type: 'gauge', settings: { min: 5, max: 5 } }])] },
      'Invalid widget at pane 0 index 0: min must be less than max',
    ],
    [
      { panes: [pane('p', at(0, 0), [{ id: 'w', type: 'indicator', settings: { onColor: 'green' } }])] },
      'Invalid widget at pane 0 index 0: settings.onColor must be a colour like #1a2b3c',
    ],
    [
      {
        panes: [
          pane('p', at(0, 0), [{ id: 'w', type: 'table', settings: { columns: [{ align: 'middle' }] } }]),
        ],
      },
      'Invalid widget at pane 0 index 0: settings.columns[0].align must be one of left, center, right',
    ],
    [
      {
        panes: [
          pane('p', at(0, 0), [{ id: 'w', type: 'picture', settings: { src: 'javascript:alert(1)' } }]),
        ],
      },
      'Invalid widget at pane 0 index 0: settings.src must be an http(s) or data:image URL',
    ],
    [
      { panes: [pane('p', at(0, 0), [{ id: 'w', type: 'base', settings: { resources: ['ftp://x'] } }])] },
      'Invalid widget at pane 0 index 0: settings.resources[0] must be an http(s) URL',
    ],
    [
      { settings: { theme: 'neon' } },
      'Invalid dashboard settings: theme must be one of auto, light, dark, high-contrast',
    ],
  ])('%j → %s', (changes, message) => {
    expect(problem(changes)).toBe(message);
  });

  it('reports the first failure in §1.1 order', () => {
    expect(problem({ title: '', columns: 0 })).toBe('title must be 1–200 characters');
    expect(
      problem({ datasources: [{ id: 'a', title: 'A', type: 'nope' }], settings: { theme: 'neon' } }),
    ).toMatch(/^Invalid datasource/);
  });
});

describe('trusted content (API §8.9)', () => {
  const html = (settings: Record<string, unknown>) => ({
    panes: [pane('p', at(0, 0), [{ id: 'w', type: 'html', settings }])],
    settings: {},
  });

  it('counts signatures: unchanged content is grandfathered, new or repeated content is not', () => {
    const trusted = html({ mode: 'trusted_html', html: '<b>x</b>' });
    expect(addsTrustedContent(null, trusted)).toBe(true);
    expect(addsTrustedContent(trusted, trusted)).toBe(false);
    expect(addsTrustedContent(trusted, { panes: [], settings: {} })).toBe(false);
    expect(addsTrustedContent(trusted, html({ html: '<b>x</b>', mode: 'trusted_html' }))).toBe(false);
    expect(addsTrustedContent(trusted, html({ mode: 'trusted_html', html: '<b>y</b>' }))).toBe(true);
    expect(addsTrustedContent(null, html({ mode: 'safe_html', html: '<b>x</b>' }))).toBe(false);
    expect(
      addsTrustedContent(null, { panes: [], settings: { script: '  ', resources: [], style: {} } }),
    ).toBe(false);
    const twice = { panes: [], settings: { script: 'x' } };
    expect(addsTrustedContent(twice, { panes: [], settings: { script: 'x', style: 'p{}' } })).toBe(true);
  });
});
