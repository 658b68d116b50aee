// One field of a design form: a spinbutton, checkbox or text box named by the field's label and
// unit, described by its range and description (all from the engine's schema), with the engine's
// exact messages for it beside it. An emptied box removes the key, so the message is the
// validator's "Field required"; nothing the user types can throw.
import { useEffect, useId, useState } from 'react';
import { JsonNumber, type JsonValue, numberValue, numericOf } from './document.ts';
import { type FieldSpec, fieldLabel, fieldRange } from './fields.ts';

export interface FieldInputProps {
  field: FieldSpec;
  value: JsonValue | undefined;
  /** The engine's messages for this field (schema or planning), shown beside it. */
  errors: readonly string[];
  onChange(value: JsonValue | undefined): void;
  disabled?: boolean;
}

function booleanOf(value: JsonValue | undefined): boolean {
  if (value === true) return true;
  if (value instanceof JsonNumber) return value.value === 1;
  if (typeof value === 'string') return /^(true|yes|on|t|y|1)$/i.test(value);
  return false;
}

export function FieldInput({ field, value, errors, onChange, disabled }: FieldInputProps) {
  const id = useId();
  const label = fieldLabel(field);
  const range = fieldRange(field);
  const hint = [field.description, range && `Range: ${range}.`].filter(Boolean).join(' ');
  const describedBy = `${id}-hint${errors.length > 0 ? ` ${id}-error` : ''}`;
  const problems =
    errors.length > 0 ? (
      <span id={`${id}-error`} className="design-field__error" data-testid="field-error">
        {errors.map((message) => (
          <span key={message}>{message}</span>
        ))}
      </span>
    ) : null;

  const numberProps = {
    id,
    integer: field.type === 'integer',
    value,
    disabled,
    describedBy,
    invalid: errors.length > 0,
    onChange,
  };

  if (field.type === 'boolean') {
    return (
      <div className="design-field design-field--check">
        <label>
          <input
            type="checkbox"
            checked={booleanOf(value)}
            disabled={disabled}
            aria-describedby={describedBy}
            aria-invalid={errors.length > 0 || undefined}
            onChange={(event) => onChange(event.target.checked)}
          />{' '}
          {label}
        </label>
        <span id={`${id}-hint`} className="design-field__hint">
          {hint}
        </span>
        {problems}
      </div>
    );
  }

  return (
    <div className={`design-field${errors.length > 0 ? ' design-field--invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {field.choices ? (
        <select
          id={id}
          value={typeof value === 'string' ? value : ''}
          disabled={disabled}
          aria-describedby={describedBy}
          aria-invalid={errors.length > 0 || undefined}
          onChange={(event) => onChange(event.target.value === '' ? undefined : event.target.value)}
        >
          <option value="">(choose)</option>
          {field.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : field.auto ? (
        <AutoNumberBox {...numberProps} label={label} />
      ) : field.type === 'string' ? (
        <input
          id={id}
          type="text"
          value={typeof value === 'string' ? value : ''}
          disabled={disabled}
          aria-describedby={describedBy}
          aria-invalid={errors.length > 0 || undefined}
          onChange={(event) => onChange(event.target.value === '' ? undefined : event.target.value)}
        />
      ) : (
        <NumberBox {...numberProps} />
      )}
      {problems}
      <span id={`${id}-hint`} className="design-field__hint">
        {hint}
      </span>
    </div>
  );
}

interface NumberBoxProps {
  id: string;
  integer: boolean;
  value: JsonValue | undefined;
  disabled?: boolean | undefined;
  describedBy: string;
  invalid: boolean;
  onChange(value: JsonValue | undefined): void;
}

/**
 * A number box that keeps what is being typed ("7." on the way to "7.5") while the document holds
 * the value: the text follows the document only when the value there differs (an undo, a layer
 * moved), never in the middle of typing the same number.
 */
function NumberBox({ id, integer, value, disabled, describedBy, invalid, onChange }: NumberBoxProps) {
  const numeric = numericOf(value);
  const [draft, setDraft] = useState(numeric === null ? '' : String(numeric));
  useEffect(() => {
    setDraft((current) => {
      const typed = current.trim() === '' ? null : Number(current);
      return typed === numeric ? current : numeric === null ? '' : String(numeric);
    });
  }, [numeric]);
  return (
    <input
      id={id}
      type="number"
      step={integer ? 1 : 'any'}
      value={draft}
      disabled={disabled}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
      onChange={(event) => {
        setDraft(event.target.value);
        onChange(numberValue(event.target.value, integer));
      }}
    />
  );
}

/**
 * A number the planner may choose itself: an "Auto" checkbox beside the spinbutton. Absent and
 * "auto" both mean the planner chooses (the schema's default); unticking Auto enables the box and
 * the typed number replaces "auto".
 */
function AutoNumberBox({ label, value, disabled, onChange, ...box }: NumberBoxProps & { label: string }) {
  const chosen = value === undefined || (typeof value === 'string' && value.toLowerCase() === 'auto');
  const [manual, setManual] = useState(!chosen);
  const auto = chosen && !manual;
  return (
    <span className="design-field__auto">
      <NumberBox
        {...box}
        value={chosen ? undefined : value}
        disabled={disabled || auto}
        onChange={(next) => onChange(next ?? 'auto')}
      />
      <label>
        <input
          type="checkbox"
          aria-label={`${label}: Auto`}
          checked={auto}
          disabled={disabled}
          onChange={(event) => {
            setManual(!event.target.checked);
            if (event.target.checked) onChange('auto');
          }}
        />{' '}
        Auto
      </label>
    </span>
  );
}
