// @vitest-environment jsdom
// Widgets as regions with their values, the notes of §7.3, and safe_html's allowlist.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Widget } from '../document.ts';
import type { DatasourceState, HubSnapshot } from '../realtime/hub.ts';
import { WidgetView } from './registry.tsx';
import { sanitizeHtml } from './sanitize.ts';

afterEach(cleanup);

function snapshot(states: Partial<DatasourceState>[]): HubSnapshot {
  const map = new Map<string, DatasourceState>(
    states.map((s) => [
      s.id as string,
      {
        id: s.id as string,
        title: s.title ?? (s.id as string),
        type: 'static',
        enabled: true,
        status: 'connected',
        hasValue: 'value' in s,
        value: undefined,
        message: null,
        valueAt: 0,
        sequence: 1,
        ...s,
      },
    ]),
  );
  return { states: map, byId: map };
}

const show = (widget: Widget, snap: HubSnapshot) => render(<WidgetView widget={widget} snapshot={snap} />);

describe('widgets', () => {
  it('name their region by title and show the bound value, with §7.3 notes', () => {
    const snap = snapshot([
      { id: 'w', title: 'Winder', value: { percent: 42.5, connected: true, rows: [{ n: 'W1', s: 'ok' }] } },
      { id: 'c', title: 'Cam', status: 'connecting' },
      { id: 'e', title: 'Err', status: 'error', message: 'Upstream rejected the connection with status 503' },
      { id: 'old', title: 'Old', status: 'stale', value: 7 },
    ]);
    show(
      {
        id: '1',
        type: 'gauge',
        title: 'Progress',
        settings: { valuePath: 'Winder.percent', precision: 1, unitText: '%' },
      },
      snap,
    );
    expect(screen.getByRole('region', { name: 'Progress' }).textContent).toContain('42.5 %');
    show(
      {
        id: '2',
        type: 'indicator',
        title: 'Link',
        settings: { valuePath: 'Winder.connected', onText: 'Up' },
      },
      snap,
    );
    expect(screen.getByRole('region', { name: 'Link' }).textContent).toContain('Up');
    show({ id: '3', type: 'text', title: 'Cam', settings: { valuePath: 'Cam.x' } }, snap);
    expect(screen.getByRole('region', { name: 'Cam' }).textContent).toBe('Cam—Connecting…');
    show({ id: '4', type: 'text', title: 'E', settings: { valuePath: 'Err.x' } }, snap);
    expect(screen.getByRole('region', { name: 'E' }).textContent).toContain(
      'Upstream rejected the connection with status 503',
    );
    show({ id: '5', type: 'text', title: 'O', settings: { valuePath: 'Old' } }, snap);
    expect(screen.getByRole('region', { name: 'O' }).textContent).toBe('O7Stale');
    show({ id: '6', type: 'text', title: 'U', settings: { valuePath: 'Nowhere.x' } }, snap);
    expect(screen.getByRole('region', { name: 'U' }).textContent).toBe('U—Unknown datasource Nowhere');
    show(
      {
        id: '7',
        type: 'status-list',
        title: 'Cells',
        settings: { valuePath: 'Winder.rows', labelField: 'n', statusField: 's' },
      },
      snap,
    );
    expect(screen.getByRole('region', { name: 'Cells' }).textContent).toContain('W1');
    show({ id: '8', type: 'fancy', title: '' }, snap);
    expect(screen.getByRole('region', { name: 'fancy' }).textContent).toContain(
      'Unsupported widget type fancy',
    );
    show({ id: '9', type: 'table', title: 'T', settings: { valuePath: 'Winder.rows' } }, snap);
    expect(screen.getByRole('region', { name: 'T' }).querySelectorAll('tbody tr')).toHaveLength(1);
  });

  it('take an object at the value path as rows, its values sorted by key (a wildcard MQTT map)', () => {
    const fleet = {
      'towpath/v1/w02/state': { name: 'Winder 2', status: 'offline', machine: null },
      'towpath/v1/w01/state': { name: 'Winder 1', status: 'running', machine: { percent: 41.5 } },
    };
    const snap = snapshot([{ id: 'f', title: 'Fleet', type: 'mqtt', value: fleet }]);
    show(
      {
        id: 't',
        type: 'table',
        title: 'Winders',
        settings: {
          valuePath: 'Fleet',
          columns: [
            { field: 'name', header: 'Name' },
            { field: 'machine.percent', header: 'Progress' },
          ],
        },
      },
      snap,
    );
    const rows = [...screen.getByRole('region', { name: 'Winders' }).querySelectorAll('tbody tr')];
    expect(rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent))).toEqual([
      ['Winder 1', '41.5'],
      ['Winder 2', '—'],
    ]);
    show(
      {
        id: 's',
        type: 'status-list',
        title: 'States',
        settings: {
          valuePath: 'Fleet',
          labelField: 'name',
          valueField: 'status',
          statusColors: { running: '#16a34a', offline: '#6b7280' },
        },
      },
      snap,
    );
    const items = [...screen.getByRole('region', { name: 'States' }).querySelectorAll('li')];
    expect(items.map((li) => li.textContent)).toEqual([
      'Winder 1running (running)',
      'Winder 2offline (offline)',
    ]);
    show(
      {
        id: 'b',
        type: 'bar-chart',
        title: 'Progress',
        settings: { valuePath: 'Fleet', labelField: 'name', valueField: 'machine.percent' },
      },
      snap,
    );
    const bars = screen.getByRole('region', { name: 'Progress' }).querySelectorAll('.widget-bars__row');
    expect([...bars].map((bar) => bar.textContent)).toEqual(['Winder 141.5', 'Winder 20']);
    // An empty map is an empty list, not a wrong kind of value.
    show(
      { id: 'e', type: 'status-list', title: 'None', settings: { valuePath: 'Empty' } },
      snapshot([{ id: 'x', title: 'Empty', value: {} }]),
    );
    expect(screen.getByRole('region', { name: 'None' }).textContent).toBe('NoneNo items');
  });

  it('inserts templates as text, never as HTML', () => {
    const snap = snapshot([{ id: 'n', title: 'Notes', value: { text: '<img src=x onerror=alert(1)>' } }]);
    show(
      { id: '1', type: 'text', title: 'Note', settings: { valueTemplate: 'Says: {{ Notes.text }}' } },
      snap,
    );
    const region = screen.getByRole('region', { name: 'Note' });
    expect(region.textContent).toBe('NoteSays: <img src=x onerror=alert(1)>');
    expect(region.querySelector('img')).toBeNull();
  });

  it('keeps only the safe_html allowlist', () => {
    const fragment = sanitizeHtml(
      '<p onclick="x()">Hi <b>there</b><script>alert(1)</script><style>p{}</style>' +
        '<a href="javascript:alert(1)">bad</a><a href="https://example.com/">good</a>' +
        '<img src="http://cam/x.jpg" onerror="y()" width="99"><img src="javascript:z"><marquee>kept text</marquee></p>',
    );
    const box = document.createElement('div');
    box.append(fragment);
    expect(box.innerHTML).toBe(
      '<p>Hi <b>there</b><a>bad</a><a href="https://example.com/" target="_blank" rel="noopener noreferrer">good</a>' +
        '<img src="http://cam/x.jpg" alt="" width="99">kept text</p>',
    );
  });
});
