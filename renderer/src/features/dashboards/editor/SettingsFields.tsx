// One form for any list of FieldSpecs. An emptied field is removed from the settings, so the
// document's default applies again; JSON fields keep the typed text until it parses.
import { useId, useState } from 'react';
import type { FieldSpec } from './fields.ts';

export interface ProfileOption {
  id: string;
  name: string;
}

type Settings = Record<string, unknown>;

function without(settings: Settings, key: string): Settings {
  const { [key]: _dropped, ...rest } = settings;
  return rest;
}

function JsonField({
  id,
  value,
  onChange,
  describedBy,
}: {
  id: string;
  value: unknown;
  onChange: (v: unknown, ok: boolean) => void;
  describedBy: string;
}) {
  const [text, setText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <textarea
        id={id}
        rows={4}
        value={text}
        aria-describedby={describedBy}
        aria-invalid={problem ? true : undefined}
        onChange={(event) => {
          const next = event.target.value;
          setText(next);
          if (next.trim() === '') {
            setProblem(null);
            onChange(undefined, true);
            return;
          }
          try {
            onChange(JSON.parse(next), true);
            setProblem(null);
          } catch {
            setProblem('Not valid JSON yet');
            onChange(value, false);
          }
        }}
      />
      {problem && <span className="form__field-problem">{problem}</span>}
    </>
  );
}

function Field({
  spec,
  settings,
  onChange,
  bindingOptions,
  profiles,
}: {
  spec: FieldSpec;
  settings: Settings;
  onChange: (settings: Settings) => void;
  bindingOptions: readonly string[];
  profiles: { credential: readonly ProfileOption[]; broker: readonly ProfileOption[] };
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const value = settings[spec.key];
  const set = (v: unknown) =>
    onChange(v === undefined || v === '' ? without(settings, spec.key) : { ...settings, [spec.key]: v });
  const hint = spec.hint ? (
    <span id={hintId} className="form__hint">
      {spec.hint}
    </span>
  ) : null;
  const describedBy = spec.hint ? hintId : undefined;

  if (spec.kind === 'boolean')
    return (
      <div className="form__field form__field--check">
        <label>
          <input
            type="checkbox"
            checked={typeof value === 'boolean' ? value : spec.defaultValue}
            aria-describedby={describedBy}
            onChange={(e) => set(e.target.checked)}
          />{' '}
          {spec.label}
        </label>
        {hint}
      </div>
    );

  let input: React.ReactNode;
  switch (spec.kind) {
    case 'number':
      input = (
        <input
          id={id}
          type="number"
          min={spec.min}
          max={spec.max}
          step={spec.step ?? (spec.integer ? 1 : 'any')}
          value={typeof value === 'number' ? value : ''}
          aria-describedby={describedBy}
          onChange={(e) => set(e.target.value === '' ? undefined : Number(e.target.value))}
        />
      );
      break;
    case 'choice':
      input = (
        <select
          id={id}
          value={value === undefined ? '' : String(value)}
          aria-describedby={describedBy}
          onChange={(e) =>
            set(e.target.value === '' ? undefined : spec.numeric ? Number(e.target.value) : e.target.value)
          }
        >
          <option value="">(default)</option>
          {spec.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
      break;
    case 'profile': {
      const options = profiles[spec.profile];
      input = (
        <select
          id={id}
          value={typeof value === 'string' ? value : ''}
          aria-describedby={describedBy}
          onChange={(e) => set(e.target.value || undefined)}
        >
          <option value="">(none)</option>
          {options.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
          {typeof value === 'string' && value && !options.some((p) => p.id === value) ? (
            <option value={value}>Missing profile {value}</option>
          ) : null}
        </select>
      );
      break;
    }
    case 'list':
      input = (
        <textarea
          id={id}
          rows={3}
          value={Array.isArray(value) ? value.join('\n') : ''}
          aria-describedby={describedBy}
          onChange={(e) => {
            const items = e.target.value.split('\n').map((line) => line.trim());
            set(
              items.every((item) => item === '')
                ? undefined
                : items.filter((item, i) => item !== '' || i < items.length - 1),
            );
          }}
        />
      );
      break;
    case 'json':
      input = <JsonField id={id} value={value} describedBy={describedBy ?? ''} onChange={(v) => set(v)} />;
      break;
    case 'template':
    case 'longtext':
      input = (
        <textarea
          id={id}
          rows={spec.kind === 'longtext' ? 5 : 2}
          value={typeof value === 'string' ? value : ''}
          aria-describedby={describedBy}
          onChange={(e) => set(e.target.value)}
        />
      );
      break;
    case 'binding':
      input = (
        <>
          <input
            id={id}
            list={`${id}-options`}
            value={typeof value === 'string' ? value : ''}
            aria-describedby={describedBy}
            spellCheck={false}
            onChange={(e) => set(e.target.value)}
          />
          <datalist id={`${id}-options`}>
            {bindingOptions.map((option) => (
              <option key={option} value={option} />
            ))}
          </datalist>
        </>
      );
      break;
    default:
      input = (
        <input
          id={id}
          type={spec.kind === 'url' ? 'url' : 'text'}
          value={typeof value === 'string' ? value : ''}
          placeholder={spec.kind === 'color' ? '#1a2b3c' : undefined}
          aria-describedby={describedBy}
          onChange={(e) => set(e.target.value)}
        />
      );
  }
  return (
    <div className="form__field">
      <label htmlFor={id}>{spec.label}</label>
      {input}
      {hint}
    </div>
  );
}

export function SettingsFields({
  fields,
  settings,
  onChange,
  bindingOptions = [],
  profiles = { credential: [], broker: [] },
}: {
  fields: readonly FieldSpec[];
  settings: Settings;
  onChange: (settings: Settings) => void;
  bindingOptions?: readonly string[];
  profiles?: { credential: readonly ProfileOption[]; broker: readonly ProfileOption[] };
}) {
  return (
    <div className="settings-fields">
      {fields.map((spec) => (
        <Field
          key={spec.key}
          spec={spec}
          settings={settings}
          onChange={onChange}
          bindingOptions={bindingOptions}
          profiles={profiles}
        />
      ))}
    </div>
  );
}
