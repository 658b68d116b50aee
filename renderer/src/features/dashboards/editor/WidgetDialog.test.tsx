// @vitest-environment jsdom
// The widget settings forms: every type has one, fields write the document's settings keys with
// the right JSON types, emptied fields fall back to defaults, and bindings are offered.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { WIDGET_LABELS, WIDGET_TYPES, type Widget } from '../document.ts';
import { WIDGET_FIELDS } from './fields.ts';
import { WidgetDialog } from './WidgetDialog.tsx';

afterEach(cleanup);

function open(initial: Widget, bindingOptions: string[] = []) {
  const saved: { widget: Widget; paneId: string }[] = [];
  render(
    <WidgetDialog
      initial={initial}
      paneId="p1"
      paneNames={[
        { id: 'p1', name: 'Job' },
        { id: 'p2', name: 'Machine' },
      ]}
      bindingOptions={bindingOptions}
      onSave={(widget, paneId) => saved.push({ widget, paneId })}
      onClose={() => {}}
    />,
  );
  const dialog = screen.getByRole('dialog');
  const apply = () => fireEvent.click(within(dialog).getByRole('button', { name: 'Apply widget' }));
  return { dialog, saved, apply };
}

describe('widget settings forms', () => {
  it('exist for every widget type, each field labelled', () => {
    for (const type of WIDGET_TYPES) {
      const { dialog } = open({ id: 'w1', type, title: '', settings: {} });
      expect(within(dialog).getByLabelText('Widget type')).toHaveProperty('value', type);
      for (const field of WIDGET_FIELDS[type] ?? [])
        expect(within(dialog).getByLabelText(field.label)).toBeTruthy();
      expect(WIDGET_FIELDS[type]?.length, WIDGET_LABELS[type]).toBeGreaterThan(0);
      cleanup();
    }
  });

  it('writes a gauge with numbers, a binding from the offered ones, and a move to another pane', () => {
    const { dialog, saved, apply } = open({ id: 'w1', type: 'gauge', title: 'Progress', settings: {} }, [
      'Winder',
      'Winder.percent',
    ]);
    const value = within(dialog).getByLabelText('Value');
    expect(
      [...(document.getElementById(value.getAttribute('list') ?? '')?.querySelectorAll('option') ?? [])].map(
        (o) => o.getAttribute('value'),
      ),
    ).toEqual(['Winder', 'Winder.percent']);
    fireEvent.change(value, { target: { value: 'Winder.percent' } });
    fireEvent.change(within(dialog).getByLabelText('Maximum'), { target: { value: '250' } });
    fireEvent.change(within(dialog).getByLabelText('Decimals'), { target: { value: '1' } });
    fireEvent.change(within(dialog).getByLabelText('Unit'), { target: { value: 'm' } });
    fireEvent.change(within(dialog).getByLabelText('In pane'), { target: { value: 'p2' } });
    apply();
    expect(saved).toEqual([
      {
        paneId: 'p2',
        widget: {
          id: 'w1',
          type: 'gauge',
          title: 'Progress',
          settings: { valuePath: 'Winder.percent', max: 250, precision: 1, unitText: 'm' },
        },
      },
    ]);
  });

  it('drops emptied fields so defaults apply, and keeps booleans, lists and JSON typed', () => {
    const { dialog, saved, apply } = open({
      id: 't',
      type: 'table',
      title: 'Cells',
      settings: { valuePath: 'Cells.machines', rowsPerPage: 10, emptyText: 'none' },
    });
    fireEvent.change(within(dialog).getByLabelText('Rows per page'), { target: { value: '' } });
    fireEvent.change(within(dialog).getByLabelText('Text without rows'), { target: { value: '' } });
    fireEvent.click(within(dialog).getByLabelText('Striped'));
    fireEvent.change(within(dialog).getByLabelText('Columns (JSON)'), {
      target: { value: '[{"field": "name"' },
    });
    expect(within(dialog).getByText('Not valid JSON yet')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('Columns (JSON)'), {
      target: { value: '[{"field": "name", "header": "Machine", "align": "right"}]' },
    });
    apply();
    expect(saved[0]?.widget.settings).toEqual({
      valuePath: 'Cells.machines',
      striped: false,
      columns: [{ field: 'name', header: 'Machine', align: 'right' }],
    });
  });

  it('starts a new type with empty settings and writes lists one item a line', () => {
    const { dialog, saved, apply } = open({
      id: 's',
      type: 'text',
      title: 'x',
      settings: { valuePath: 'A.b' },
    });
    fireEvent.change(within(dialog).getByLabelText('Widget type'), { target: { value: 'sparkline' } });
    fireEvent.change(within(dialog).getByLabelText('Series values'), {
      target: { value: 'Resin.t1\nResin.t2' },
    });
    fireEvent.change(within(dialog).getByLabelText('Scale'), { target: { value: 'fixed' } });
    fireEvent.click(within(dialog).getByLabelText('Show legend'));
    fireEvent.click(within(dialog).getByLabelText('Shown'));
    apply();
    expect(saved[0]?.widget).toEqual({
      id: 's',
      type: 'sparkline',
      title: 'x',
      enabled: false,
      settings: { seriesPaths: ['Resin.t1', 'Resin.t2'], scaleMode: 'fixed', showLegend: true },
    });
  });
});
