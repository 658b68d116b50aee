// One form for any list of FieldSpecs. An emptied field is removed from the settings, so the
// document's default applies again; JSON fields keep the typed text until it parses.
import { useState } from 'react';
import { Checkbox, Field, type FieldControl } from '../../../ui/Field.tsx';
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
  control,
  value,
  onChange,
}: {
  control: FieldControl;
  value: unknown;
  onChange: (v: unknown, ok: boolean) => void;
}) {
  const [text, setText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <textarea
        {...control}
        rows={4}
        value={text}
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

function SettingField({
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
  const value = settings[spec.key];
  const set = (v: unknown) =>
    onChange(v === undefined || v === '' ? without(settings, spec.key) : { ...settings, [spec.key]: v });

  if (spec.kind === 'boolean')
    return (
      <Checkbox
        label={spec.label}
        hint={spec.hint}
        checked={typeof value === 'boolean' ? value : spec.defaultValue}
        onChange={set}
      />
    );

  const input = (control: FieldControl): React.ReactNode => {
    switch (spec.kind) {
      case 'number':
        return (
          <input
            {...control}
            type="number"
            min={spec.min}
            max={spec.max}
            step={spec.step ?? (spec.integer ? 1 : 'any')}
            value={typeof value === 'number' ? value : ''}
            onChange={(e) => set(e.target.value === '' ? undefined : Number(e.target.value))}
          />
        );
      case 'choice':
        return (
          <select
            {...control}
            value={value === undefined ? '' : String(value)}
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
      case 'profile': {
        const options = profiles[spec.profile];
        return (
          <select
            {...control}
            value={typeof value === 'string' ? value : ''}
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
      }
      case 'list':
        return (
          <textarea
            {...control}
            rows={3}
            value={Array.isArray(value) ? value.join('\n') : ''}
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
      case 'json':
        return <JsonField control={control} value={value} onChange={(v) => set(v)} />;
      case 'template':
      case 'longtext':
        return (
          <textarea
            {...control}
            rows={spec.kind === 'longtext' ? 5 : 2}
            value={typeof value === 'string' ? value : ''}
            onChange={(e) => set(e.target.value)}
          />
        );
      case 'binding':
        return (
          <>
            <input
              {...control}
              list={`${control.id}-options`}
              value={typeof value === 'string' ? value : ''}
              spellCheck={false}
              onChange={(e) => set(e.target.value)}
            />
            <datalist id={`${control.id}-options`}>
              {bindingOptions.map((option) => (
                <option key={option} value={option} />
              ))}
            </datalist>
          </>
        );
      default:
        return (
          <input
            {...control}
            type={spec.kind === 'url' ? 'url' : 'text'}
            value={typeof value === 'string' ? value : ''}
            placeholder={spec.kind === 'color' ? '#1a2b3c' : undefined}
            onChange={(e) => set(e.target.value)}
          />
        );
    }
  };
  return (
    <Field label={spec.label} hint={spec.hint}>
      {input}
    </Field>
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
        <SettingField
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
