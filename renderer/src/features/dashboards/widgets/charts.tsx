// Sparkline and bar chart (§5.2), drawn as small SVGs.
import { useRef } from 'react';
import { rowsOf } from '#engine/dashboard/topic-values.ts';
import { resolveField } from '../bindings.ts';
import { WidgetValue } from './basic.tsx';
import { bind, isBoolean, isNumber, isString, numberOf, setting } from './bound.ts';
import type { WidgetProps } from './props.ts';

const SERIES_COLORS = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#d97706',
  '#7c3aed',
  '#0891b2',
  '#db2777',
  '#4b5563',
];

export function SparklineWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const seriesPaths =
    Array.isArray(s?.seriesPaths) && s.seriesPaths.length > 0 ? (s.seriesPaths as unknown[]) : [s?.valuePath];
  const labels = Array.isArray(s?.seriesLabels) ? (s.seriesLabels as unknown[]) : [];
  const length = setting(s, 'historyLength', 100, isNumber);
  const lineWidth = setting(s, 'lineWidth', 2, isNumber);
  const fixed = s?.scaleMode === 'fixed';
  const bounds = seriesPaths.map((path) => bind(snapshot, path));
  // History lives in the viewer: one point per series for each new value of a bound datasource.
  const history = useRef<{ sequence: string; points: (number | null)[][] }>({ sequence: '', points: [] });
  const sequence = bounds
    .map((b) => (b.datasourceId ? (snapshot.states.get(b.datasourceId)?.sequence ?? 0) : 0))
    .join(',');
  if (sequence !== history.current.sequence) {
    const hasAny = bounds.some((b) => b.value !== undefined);
    history.current.sequence = sequence;
    if (hasAny) {
      history.current.points.push(bounds.map((b) => numberOf(b.value)));
      if (history.current.points.length > length)
        history.current.points.splice(0, history.current.points.length - length);
    }
  }
  const points = history.current.points;
  const all = points.flat().filter((n): n is number => n !== null);
  const min = fixed ? setting(s, 'min', 0, isNumber) : Math.min(...all, 0);
  const max = fixed ? setting(s, 'max', 100, isNumber) : Math.max(...all, min + 1);
  const line = (series: number) => {
    const segments: string[] = [];
    let pen = 'M';
    points.forEach((row, i) => {
      const v = row[series];
      if (v === null || v === undefined) {
        pen = 'M';
        return;
      }
      const x = points.length < 2 ? 0 : (i / (length - 1)) * 100;
      const y = 40 - ((Math.min(max, Math.max(min, v)) - min) / (max - min || 1)) * 40;
      segments.push(`${pen}${x.toFixed(2)} ${y.toFixed(2)}`);
      pen = 'L';
    });
    return segments.join(' ');
  };
  const last = points.at(-1)?.[0];
  return (
    <WidgetValue note={bounds[0]?.note ?? null}>
      <svg className="widget-sparkline" viewBox="0 0 100 40" preserveAspectRatio="none" aria-hidden="true">
        {seriesPaths.map((_, i) => (
          <path
            key={i}
            d={line(i)}
            fill="none"
            stroke={SERIES_COLORS[i % SERIES_COLORS.length]}
            strokeWidth={lineWidth}
            vectorEffect="non-scaling-stroke"
          />
        ))}
      </svg>
      <p className="widget-sparkline__last">{last === null || last === undefined ? '—' : String(last)}</p>
      {s?.showLegend === true ? (
        <ul className="widget-legend">
          {seriesPaths.map((path, i) => (
            <li key={i} style={{ color: SERIES_COLORS[i % SERIES_COLORS.length] }}>
              {typeof labels[i] === 'string' ? (labels[i] as string) : String(path)}
            </li>
          ))}
        </ul>
      ) : null}
    </WidgetValue>
  );
}

export function BarChartWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const bound = bind(snapshot, s?.valuePath);
  const rows = rowsOf(bound.value)?.slice(0, 200) ?? null;
  const labelField = setting(s, 'labelField', 'label', isString);
  const fields =
    Array.isArray(s?.seriesFields) && s.seriesFields.length > 0
      ? (s.seriesFields as string[])
      : [setting(s, 'valueField', 'value', isString)];
  const colors = Array.isArray(s?.colors) && s.colors.length > 0 ? (s.colors as string[]) : SERIES_COLORS;
  const showValues = setting(s, 'showValues', true, isBoolean);
  const horizontal = s?.orientation === 'horizontal';
  if (!rows) return <WidgetValue note={bound.note}>{'—'}</WidgetValue>;
  const values = rows.map((row) => fields.map((f) => Math.max(0, numberOf(resolveField(row, f)) ?? 0)));
  // A set scale (100 for percentages) keeps a third-done job from drawing as a full bar.
  const max = Math.max(1, setting(s, 'max', 0, isNumber), ...values.flat());
  return (
    <WidgetValue note={bound.note}>
      <ul className={`widget-bars${horizontal ? ' widget-bars--horizontal' : ''}`}>
        {rows.map((row, i) => {
          const label = resolveField(row, labelField);
          return (
            <li key={i} className="widget-bars__row">
              <span className="widget-bars__label">
                {label === undefined ? `Item ${i + 1}` : String(label)}
              </span>
              {values[i]?.map((v, j) => (
                <span key={j} className="widget-bars__bar-wrap">
                  <span
                    className="widget-bars__bar"
                    style={{ width: `${(v / max) * 100}%`, background: colors[j % colors.length] }}
                  />
                  {showValues ? <span className="widget-bars__value">{v}</span> : null}
                </span>
              ))}
            </li>
          );
        })}
      </ul>
    </WidgetValue>
  );
}
