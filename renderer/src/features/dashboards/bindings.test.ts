import { describe, expect, it } from 'vitest';
import {
  type DatasourceValues,
  formatValue,
  renderTemplate,
  resolveBinding,
  resolveField,
} from './bindings.ts';

function values(
  entries: Record<string, { title: string; value?: unknown; enabled?: boolean }>,
): DatasourceValues {
  return {
    byId: new Map(
      Object.entries(entries).map(([id, e]) => [
        id,
        { title: e.title, enabled: e.enabled ?? true, hasValue: 'value' in e, value: e.value },
      ]),
    ),
  };
}

const v = values({
  winder: { title: 'Winder', value: { percent: 42.5, layer: null } },
  cells: { title: 'Cells', value: { machines: [{ name: 'W1' }, { name: 'W2' }] } },
  resin: { title: 'Resin bath', value: { meta: { 'sensor.id': 'T1' } } },
  off: { title: 'Off', value: 1, enabled: false },
  later: { title: 'Later' },
});

describe('bindings (§2.2 table)', () => {
  it('resolves by id and by title, quoted or not', () => {
    expect(resolveBinding(v, 'datasources.winder.percent')).toMatchObject({ found: true, value: 42.5 });
    expect(resolveBinding(v, 'winder["percent"]')).toMatchObject({ found: true, value: 42.5 });
    expect(resolveBinding(v, 'datasources.Winder')).toMatchObject({ found: false, reason: 'unknown' });
    expect(resolveBinding(v, 'Winder["percent"]')).toMatchObject({ found: true, value: 42.5 });
    expect(resolveBinding(v, 'WINDER.layer')).toMatchObject({ found: true, value: null });
    expect(resolveBinding(v, 'Winder.job')).toMatchObject({ found: false, reason: 'missing' });
    expect(resolveBinding(v, 'Cells.machines[1].name')).toMatchObject({ found: true, value: 'W2' });
    expect(resolveBinding(v, 'Cells.machines.name')).toMatchObject({ found: false });
    expect(resolveBinding(v, `["Resin bath"].meta['sensor.id']`)).toMatchObject({ found: true, value: 'T1' });
  });

  it('never resolves inherited members, disabled or value-less datasources', () => {
    expect(resolveBinding(v, 'Winder.__proto__')).toMatchObject({ found: false });
    expect(resolveBinding(v, 'Winder.toString')).toMatchObject({ found: false });
    expect(resolveBinding(v, 'Off')).toMatchObject({ found: false, reason: 'disabled' });
    expect(resolveBinding(v, 'Later')).toMatchObject({ found: false, reason: 'missing' });
    expect(resolveBinding(v, 'Winder .percent')).toMatchObject({ found: false, reason: 'syntax' });
  });

  it('reads field paths from a row', () => {
    expect(resolveField({ a: { b: [5, 6] } }, 'a.b[1]')).toBe(6);
    expect(resolveField([7], '[0]')).toBe(7);
    expect(resolveField({ x: 1 }, '')).toEqual({ x: 1 });
    expect(resolveField({ x: 1 }, 'y')).toBeUndefined();
  });
});

describe('templates and formats', () => {
  it('fills placeholders as text, missing and null as —', () => {
    expect(
      renderTemplate(
        v,
        '{{ Winder.percent }} % · {{Winder.layer}} · {{ Nope.x }} {{ ["Resin bath"].meta["sensor.id"] }} {{ open',
      ),
    ).toBe('42.5 % · — · — T1 {{ open');
  });

  it('formats durations, percentages and JSON', () => {
    expect(formatValue(3725, 'duration')).toBe('1:02:05');
    expect(formatValue(-1, 'duration')).toBe('—');
    expect(formatValue(0.425, 'percent')).toBe('42.5%');
    expect(formatValue('12', 'integer')).toBe('12');
    expect(formatValue('abc', 'number')).toBe('—');
    expect(formatValue(1.23456, 'auto', 2)).toBe('1.23');
    expect(formatValue({ a: 'x'.repeat(300) }, 'auto')).toHaveLength(201);
  });
});
