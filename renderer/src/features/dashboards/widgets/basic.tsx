// Text, gauge and indicator widgets (§5.2).
import { type Format, formatValue, MISSING, renderTemplate, templateBindings } from '../bindings.ts';
import { type Bound, bind, combine, isColor, isNumber, isString, numberOf, setting } from './bound.ts';
import type { WidgetProps } from './props.ts';

export function TextWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const precision = setting<number | null>(s, 'precision', null, isNumber);
  const format = setting<Format>(s, 'format', 'auto', isString);
  const unit = setting(s, 'unitText', '', isString);
  const template = setting(s, 'valueTemplate', '', isString);
  let text: string;
  let notes: Pick<Bound, 'note' | 'status'>;
  if (template !== '') {
    text = renderTemplate(snapshot, template, precision);
    notes = combine(templateBindings(template).map((b) => bind(snapshot, b)));
  } else {
    const bound = bind(snapshot, s?.valuePath);
    text = formatValue(bound.value, format, precision);
    notes = bound;
  }
  const size = setting<string>(s, 'size', 'regular', isString);
  return (
    <WidgetValue note={notes.note}>
      <p className={`widget-text widget-text--${size === 'large' ? 'large' : 'regular'}`}>
        {text}
        {unit && text !== MISSING ? <span className="widget-text__unit"> {unit}</span> : null}
      </p>
    </WidgetValue>
  );
}

export function WidgetValue({ note, children }: { note: string | null; children: React.ReactNode }) {
  return (
    <>
      {children}
      {note ? <p className="widget__note">{note}</p> : null}
    </>
  );
}

export function GaugeWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const min = setting(s, 'min', 0, isNumber);
  const max = setting(s, 'max', 100, isNumber);
  const precision = setting(s, 'precision', 0, isNumber);
  const unit = setting(s, 'unitText', '', isString);
  const bound = bind(snapshot, s?.valuePath);
  const n = numberOf(bound.value);
  const fraction = n === null || max <= min ? 0 : Math.min(1, Math.max(0, (n - min) / (max - min)));
  // A half circle from the left (min) to the right (max).
  const angle = Math.PI * (1 - fraction);
  const x = 50 + 40 * Math.cos(angle);
  const y = 50 - 40 * Math.sin(angle);
  const text = n === null ? MISSING : n.toFixed(precision);
  return (
    <WidgetValue note={bound.note}>
      <svg className="widget-gauge" viewBox="0 0 100 60" aria-hidden="true">
        <path d="M10 50 A40 40 0 0 1 90 50" className="widget-gauge__track" />
        {n !== null && fraction > 0 ? (
          <path d={`M10 50 A40 40 0 0 1 ${x.toFixed(2)} ${y.toFixed(2)}`} className="widget-gauge__fill" />
        ) : null}
      </svg>
      <p className="widget-gauge__text">
        {text}
        {unit && n !== null ? ` ${unit}` : ''}
      </p>
    </WidgetValue>
  );
}

const ON = new Set(['true', 'on', 'yes', '1']);
const OFF = new Set(['false', 'off', 'no', '0', '']);

export function indicatorState(value: unknown): boolean | null {
  if (value === true) return true;
  if (value === false) return false;
  if (typeof value === 'number') return Number.isFinite(value) ? value !== 0 : null;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (ON.has(v)) return true;
    if (OFF.has(v)) return false;
  }
  return null;
}

export function IndicatorWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const bound = bind(snapshot, s?.valuePath);
  const on = indicatorState(bound.value);
  const color =
    on === true
      ? setting(s, 'onColor', '#16a34a', isColor)
      : on === false
        ? setting(s, 'offColor', '#6b7280', isColor)
        : '#9ca3af';
  const text =
    on === true
      ? setting(s, 'onText', 'On', isString)
      : on === false
        ? setting(s, 'offText', 'Off', isString)
        : MISSING;
  return (
    <WidgetValue note={bound.note}>
      <p className="widget-indicator">
        <span className="widget-indicator__light" style={{ background: color }} aria-hidden="true" />
        {text}
      </p>
    </WidgetValue>
  );
}
