// @vitest-environment jsdom
// The editor's grid: keyboard and button moves and resizes stay inside the grid and never overlap.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { DashboardDocument, Pane } from '../document.ts';
import type { HubSnapshot } from '../realtime/hub.ts';
import { EditorGrid } from './EditorGrid.tsx';

afterEach(cleanup);

const EMPTY: HubSnapshot = { states: new Map(), byId: new Map() };

function documentWith(panes: Pane[], columns = 3): DashboardDocument {
  return {
    title: 't',
    version: 'v',
    image: null,
    datasources: [],
    columns,
    width: 'md',
    panes,
    settings: {},
  };
}

/** The grid with its own state, as the editor holds it; `latest` shows what it last reported. */
function harness(initial: Pane[], columns = 3) {
  const latest: { panes: Pane[]; edited: string[] } = { panes: initial, edited: [] };
  function Harness() {
    const [panes, setPanes] = useState(initial);
    const [selected, setSelected] = useState<string | null>(null);
    return (
      <EditorGrid
        document={documentWith(panes, columns)}
        snapshot={EMPTY}
        selectedPaneId={selected}
        onSelectPane={setSelected}
        onPanesChange={(next) => {
          latest.panes = next;
          setPanes(next);
        }}
        onEditWidget={(paneId, widgetId) => latest.edited.push(`${paneId}/${widgetId}`)}
      />
    );
  }
  render(<Harness />);
  return latest;
}

const layoutOf = (latest: { panes: Pane[] }, id: string) => latest.panes.find((p) => p.id === id)?.layout;

describe('EditorGrid', () => {
  it('moves a pane with the arrow keys on its handle and resizes it with Shift, within the columns', () => {
    const latest = harness([{ id: 'a', title: 'Job', layout: { x: 0, y: 0, w: 1, h: 2 }, widgets: [] }]);
    const handle = screen.getByRole('button', { name: 'Move or resize pane Job' });
    fireEvent.keyDown(handle, { key: 'ArrowRight' });
    fireEvent.keyDown(handle, { key: 'ArrowDown' });
    expect(layoutOf(latest, 'a')).toEqual({ x: 1, y: 1, w: 1, h: 2 });
    fireEvent.keyDown(handle, { key: 'ArrowRight', shiftKey: true });
    expect(layoutOf(latest, 'a')).toEqual({ x: 1, y: 1, w: 2, h: 2 });
    // A third column more would leave the grid: refused, nothing changes.
    fireEvent.keyDown(handle, { key: 'ArrowRight', shiftKey: true });
    fireEvent.keyDown(handle, { key: 'ArrowRight' });
    expect(layoutOf(latest, 'a')).toEqual({ x: 1, y: 1, w: 2, h: 2 });
    fireEvent.keyDown(handle, { key: 'ArrowUp', shiftKey: true });
    expect(layoutOf(latest, 'a')).toEqual({ x: 1, y: 1, w: 2, h: 1 });
    fireEvent.keyDown(handle, { key: 'ArrowUp', shiftKey: true });
    expect(layoutOf(latest, 'a')?.h).toBe(1);
  });

  it('never lets panes overlap, by keys or by buttons', () => {
    const latest = harness([
      { id: 'a', title: 'Left', layout: { x: 0, y: 0, w: 1, h: 2 } },
      { id: 'b', title: 'Right', layout: { x: 1, y: 0, w: 1, h: 2 } },
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Move pane Left right' }));
    fireEvent.click(screen.getByRole('button', { name: 'Make pane Left wider' }));
    expect(layoutOf(latest, 'a')).toEqual({ x: 0, y: 0, w: 1, h: 2 });
    fireEvent.click(screen.getByRole('button', { name: 'Move pane Right down' }));
    fireEvent.click(screen.getByRole('button', { name: 'Move pane Right down' }));
    fireEvent.click(screen.getByRole('button', { name: 'Make pane Left wider' }));
    expect(layoutOf(latest, 'a')).toEqual({ x: 0, y: 0, w: 2, h: 2 });
    expect(layoutOf(latest, 'b')).toEqual({ x: 1, y: 2, w: 1, h: 2 });
  });

  it('renames, removes panes and hands widgets to their settings form', () => {
    const latest = harness([
      {
        id: 'a',
        title: '',
        layout: { x: 0, y: 0, w: 1, h: 2 },
        widgets: [{ id: 'w1', type: 'text', title: 'Progress', settings: {} }],
      },
      { id: 'b', title: 'Spare', layout: { x: 1, y: 0, w: 1, h: 2 } },
    ]);
    fireEvent.change(screen.getByRole('textbox', { name: 'Title of pane Pane 1' }), {
      target: { value: 'Job' },
    });
    expect(latest.panes[0]?.title).toBe('Job');
    expect(screen.getByRole('group', { name: 'Pane Job' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Edit widget Progress' }));
    expect(latest.edited).toEqual(['a/w1']);
    fireEvent.keyDown(screen.getByRole('button', { name: 'Move or resize pane Spare' }), { key: 'Delete' });
    expect(latest.panes.map((p) => p.id)).toEqual(['a']);
    fireEvent.click(screen.getByRole('button', { name: 'Remove widget Progress' }));
    expect(latest.panes[0]?.widgets).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Remove pane Job' }));
    expect(latest.panes).toEqual([]);
  });

  it('shows each widget as a region with its preview value', () => {
    harness([
      {
        id: 'a',
        title: 'Job',
        layout: { x: 0, y: 0, w: 1, h: 2 },
        widgets: [{ id: 'w1', type: 'text', title: '', settings: { valueTemplate: 'Line 3' } }],
      },
    ]);
    // An untitled widget is named by its type's label.
    expect(screen.getByRole('region', { name: 'Text' }).textContent).toContain('Line 3');
  });
});
