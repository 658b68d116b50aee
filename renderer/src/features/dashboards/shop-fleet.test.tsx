// @vitest-environment jsdom
// The shipped shop-fleet dashboard (resources/dashboards): it imports as any export does, asks for a
// broker profile of this workstation, and its widgets list every winder of a wildcard MQTT map.
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import shopFleet from '../../../../resources/dashboards/shop-fleet.towpath-dashboard.json?raw';
import { importDocument, missingProfileWarnings, type Widget } from './document.ts';
import type { DatasourceState, HubSnapshot } from './realtime/hub.ts';
import { WidgetView } from './widgets/registry.tsx';

afterEach(cleanup);

const state = (id: string, name: string, status: string, machine: Record<string, unknown> | null) => ({
  v: 1,
  workstationId: id,
  name,
  online: status !== 'offline',
  status,
  ...(status === 'offline' ? { reason: 'connection lost' } : {}),
  instance: 'f'.repeat(16),
  since: '2026-11-28T07:00:00.000Z',
  towpathVersion: '0.1.0',
  machine,
  at: '2026-11-28T08:00:00.000Z',
});

const FLEET = {
  'towpath/v1/w02/state': state('w02', 'Winder 2', 'offline', null),
  'towpath/v1/w01/state': state('w01', 'Winder 1', 'running', {
    jobName: 'vessel-a.gcode',
    percent: 41.5,
    remainingSeconds: 3725,
    layer: 3,
    lastError: null,
  }),
  'towpath/v1/w03/state': state('w03', 'Winder 3', 'error', {
    jobName: 'pipe.gcode',
    percent: 12,
    remainingSeconds: null,
    layer: 1,
    lastError: 'Emergency stop',
  }),
};

function snapshot(value: unknown): HubSnapshot {
  const fleet: DatasourceState = {
    id: 'fleet',
    title: 'Fleet',
    type: 'mqtt',
    enabled: true,
    status: 'connected',
    hasValue: true,
    value,
    message: null,
    valueAt: 0,
    sequence: 1,
  };
  const states = new Map([[fleet.id, fleet]]);
  return { states, byId: states };
}

describe('the shop-fleet dashboard', () => {
  const document = importDocument(shopFleet);
  const widgets = document.panes.flatMap((pane) => pane.widgets as Widget[]);
  const show = (type: string) => {
    const widget = widgets.find((w) => w.type === type) as Widget;
    render(<WidgetView widget={widget} snapshot={snapshot(FLEET)} />);
    return screen.getByRole('region', { name: widget.title });
  };

  it('imports with one wildcard MQTT datasource that needs this workstation’s broker profile', () => {
    expect(document.datasources).toEqual([
      expect.objectContaining({
        type: 'mqtt',
        settings: expect.objectContaining({ topic: 'towpath/v1/+/state' }),
      }),
    ]);
    expect(missingProfileWarnings(document, new Set())).toEqual([
      'Datasource Fleet refers to a profile that does not exist here',
    ]);
    expect(missingProfileWarnings(document, new Set(['shop-broker']))).toEqual([]);
  });

  it('lists every winder by name with its status, sorted by topic', () => {
    const items = within(show('status-list')).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'Winder 1vessel-a.gcode (running)',
      'Winder 2— (offline)',
      'Winder 3pipe.gcode (error)',
    ]);
    const dots = items.map(
      (item) => (item.querySelector('.widget-status__dot') as HTMLElement).style.background,
    );
    expect(new Set(dots).size).toBe(3);
  });

  it('tabulates name, status, job, progress, remaining, layer, last error and last seen', () => {
    const table = show('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Winder', 'Status', 'Job', 'Progress %', 'Remaining', 'Layer', 'Last error', 'Last seen']);
    const rows = within(table).getAllByRole('row').slice(1);
    const cells = rows.map((row) =>
      within(row)
        .getAllByRole('cell')
        .map((td) => td.textContent),
    );
    expect(cells.map((row) => row.slice(0, 7))).toEqual([
      ['Winder 1', 'running', 'vessel-a.gcode', '41.5', '1:02:05', '3', '—'],
      ['Winder 2', 'offline', '—', '—', '—', '—', '—'],
      ['Winder 3', 'error', 'pipe.gcode', '12', '—', '1', 'Emergency stop'],
    ]);
    expect(cells.every((row) => row[7] !== '—')).toBe(true);
  });

  it('draws each winder’s progress', () => {
    const bars = show('bar-chart').querySelectorAll('.widget-bars__row');
    expect([...bars].map((bar) => bar.textContent)).toEqual(['Winder 141.5', 'Winder 20', 'Winder 312']);
    // Against a full bar at 100 %: the furthest job is not drawn as a finished one.
    const widths = [...bars].map(
      (bar) => (bar.querySelector('.widget-bars__bar') as HTMLElement).style.width,
    );
    expect(widths).toEqual(['41.5%', '0%', '12%']);
  });

  it('says so while no winder has reported', () => {
    const widget = widgets.find((w) => w.type === 'table') as Widget;
    render(<WidgetView widget={widget} snapshot={snapshot({})} />);
    expect(screen.getByRole('region', { name: widget.title }).textContent).toContain(
      'No winder has reported to the broker yet',
    );
  });
});
