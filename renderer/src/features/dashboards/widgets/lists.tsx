// Table and status list (§5.2); an object at `valuePath` gives its values, sorted by key, as rows.
import { useState } from 'react';
import { rowsOf } from '#engine/dashboard/topic-values.ts';
import { type Format, formatValue, resolveField } from '../bindings.ts';
import { isObject } from '../document.ts';
import { WidgetValue } from './basic.tsx';
import { bind, isBoolean, isNumber, isString, setting } from './bound.ts';
import type { WidgetProps } from './props.ts';

const MAX_ROWS = 1000;

interface Column {
  field: string;
  header: string;
  width?: string;
  align: 'left' | 'center' | 'right';
  format: Format;
}

function columnsOf(settings: Record<string, unknown> | undefined, rows: Record<string, unknown>[]): Column[] {
  const given = Array.isArray(settings?.columns) ? settings.columns.filter(isObject) : [];
  if (given.length === 0)
    return Object.keys(rows[0] ?? {}).map((key) => ({
      field: key,
      header: key,
      align: 'left',
      format: 'auto',
    }));
  return given.slice(0, 32).map((c) => ({
    field: typeof c.field === 'string' ? c.field : '',
    header: typeof c.header === 'string' ? c.header : typeof c.field === 'string' ? c.field : '',
    ...(typeof c.width === 'string' && /^[0-9]{1,4}(px|%)$/.test(c.width) ? { width: c.width } : {}),
    align: c.align === 'center' || c.align === 'right' ? c.align : 'left',
    format: (typeof c.format === 'string' ? c.format : 'auto') as Format,
  }));
}

export function TableWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const bound = bind(snapshot, s?.valuePath);
  const [sort, setSort] = useState<{ field: string; up: boolean } | null>(null);
  const [page, setPage] = useState(0);
  const emptyText = setting(s, 'emptyText', 'No rows', isString);
  const items = rowsOf(bound.value);
  if (!items)
    return (
      <WidgetValue note={bound.note}>
        {bound.value === undefined || bound.value === null ? emptyText : '—'}
      </WidgetValue>
    );
  const all = items.map((item) => (isObject(item) ? item : { value: item }));
  let rows = all.slice(0, MAX_ROWS);
  const columns = columnsOf(s, rows);
  if (sort) {
    rows = [...rows].sort((a, b) => {
      const x = resolveField(a, sort.field);
      const y = resolveField(b, sort.field);
      const order =
        typeof x === 'number' && typeof y === 'number'
          ? x - y
          : String(x ?? '').localeCompare(String(y ?? ''));
      return sort.up ? order : -order;
    });
  }
  const perPage = setting(s, 'rowsPerPage', 0, isNumber);
  const pages = perPage > 0 ? Math.max(1, Math.ceil(rows.length / perPage)) : 1;
  const current = Math.min(page, pages - 1);
  const shown = perPage > 0 ? rows.slice(current * perPage, (current + 1) * perPage) : rows;
  const sortable = setting(s, 'sortable', true, isBoolean);
  const classes = [
    'widget-table',
    setting(s, 'striped', true, isBoolean) ? 'widget-table--striped' : '',
    s?.compact === true ? 'widget-table--compact' : '',
  ]
    .filter(Boolean)
    .join(' ');
  if (rows.length === 0) return <WidgetValue note={bound.note}>{emptyText}</WidgetValue>;
  return (
    <WidgetValue note={bound.note}>
      <table className={classes}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th
                key={c.field + c.header}
                style={{ textAlign: c.align, ...(c.width ? { width: c.width } : {}) }}
                scope="col"
                aria-sort={sort?.field === c.field ? (sort.up ? 'ascending' : 'descending') : undefined}
              >
                {sortable ? (
                  <button
                    type="button"
                    className="button--link"
                    onClick={() => setSort({ field: c.field, up: sort?.field === c.field ? !sort.up : true })}
                  >
                    {c.header}
                  </button>
                ) : (
                  c.header
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((row, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c.field + c.header} style={{ textAlign: c.align }}>
                  {formatValue(resolveField(row, c.field), c.format)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {all.length > MAX_ROWS ? <p className="widget__note">Showing 1000 of {all.length} rows</p> : null}
      {pages > 1 ? (
        <p className="toolbar">
          <button
            type="button"
            className="button"
            disabled={current === 0}
            onClick={() => setPage(current - 1)}
          >
            Previous
          </button>
          <span>
            Page {current + 1} of {pages}
          </span>
          <button
            type="button"
            className="button"
            disabled={current >= pages - 1}
            onClick={() => setPage(current + 1)}
          >
            Next
          </button>
        </p>
      ) : null}
    </WidgetValue>
  );
}

const STATUS_COLORS: Record<string, string> = {
  ok: '#16a34a',
  warn: '#f59e0b',
  warning: '#f59e0b',
  error: '#ef4444',
  offline: '#6b7280',
  unknown: '#64748b',
};

export function StatusListWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const bound = bind(snapshot, s?.valuePath);
  const items = rowsOf(bound.value);
  if (!items || items.length === 0)
    return (
      <WidgetValue note={bound.note}>
        {items || bound.value === undefined || bound.value === null ? 'No items' : '—'}
      </WidgetValue>
    );
  const labelField = setting(s, 'labelField', 'label', isString);
  const valueField = setting(s, 'valueField', 'value', isString);
  const statusField = setting(s, 'statusField', 'status', isString);
  const colors = {
    ...STATUS_COLORS,
    ...(isObject(s?.statusColors) ? (s.statusColors as Record<string, string>) : {}),
  };
  const showIcons = setting(s, 'showIcons', true, isBoolean);
  return (
    <WidgetValue note={bound.note}>
      <ul className={`widget-status${s?.compact === true ? ' widget-status--compact' : ''}`}>
        {items.slice(0, 200).map((item, i) => {
          const label = resolveField(item, labelField);
          const value = resolveField(item, valueField);
          const raw = resolveField(item, statusField);
          const status =
            typeof raw === 'string' && raw.trim().toLowerCase() in colors
              ? raw.trim().toLowerCase()
              : 'unknown';
          return (
            <li key={i}>
              {showIcons ? (
                <span
                  className="widget-status__dot"
                  style={{ background: colors[status] }}
                  aria-hidden="true"
                />
              ) : null}
              <span className="widget-status__label">
                {label === undefined || label === null ? `Item ${i + 1}` : String(label)}
              </span>
              <span className="widget-status__value">{formatValue(value)}</span>
              <span className="visually-hidden"> ({status})</span>
            </li>
          );
        })}
      </ul>
    </WidgetValue>
  );
}
