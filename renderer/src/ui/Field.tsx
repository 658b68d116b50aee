// The pieces every form is made of, so that each one names its controls, describes them and
// announces its problems the same way (forms.css styles them).
import { type InputHTMLAttributes, type ReactNode, useId } from 'react';

/** What a control needs to be named by the field's label and described by its hint. */
export interface FieldControl {
  id: string;
  'aria-describedby'?: string;
}

/**
 * A label above its control and, if given, a hint below it that describes the control. `children`
 * renders the control with the ids it needs, so the control keeps its own props where they are read.
 */
export function Field({
  label,
  hint,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  children: (control: FieldControl) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="form__field">
      <label htmlFor={id}>{label}</label>
      {children(hint ? { id, 'aria-describedby': hintId } : { id })}
      {hint && (
        <span id={hintId} className="form__hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/**
 * The common case of a field: one text-like input (text, email, password, number, search) whose
 * value is a string. The other props go to the input as they are.
 */
export function TextField({
  label,
  hint,
  value,
  onChange,
  ...input
}: {
  label: ReactNode;
  hint?: ReactNode;
  value: string | number;
  onChange: (value: string) => void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange' | 'children'>) {
  return (
    <Field label={label} hint={hint}>
      {(control) => (
        <input {...input} {...control} value={value} onChange={(event) => onChange(event.target.value)} />
      )}
    </Field>
  );
}

/** A checkbox with its label beside it and, if given, a hint below that describes it. */
export function Checkbox({
  label,
  hint,
  checked,
  onChange,
  disabled,
}: {
  label: ReactNode;
  hint?: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}) {
  const hintId = `${useId()}-hint`;
  const box = (
    <label>
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        aria-describedby={hint ? hintId : undefined}
        onChange={(event) => onChange(event.target.checked)}
      />{' '}
      {label}
    </label>
  );
  if (!hint) return box;
  return (
    <div className="form__field">
      {box}
      <span id={hintId} className="form__hint">
        {hint}
      </span>
    </div>
  );
}

/** What went wrong, announced to screen readers as it appears; nothing while nothing has. */
export function Problem({ message }: { message: string | null | undefined }) {
  return message ? (
    <p className="form__problem" role="alert">
      {message}
    </p>
  ) : null;
}
