import { useState } from 'react';
import { Field } from '../../ui/Field.tsx';

/** A link or token shown once, right after it was made: the server never shows it again. */
export function OneTimeSecret({ label, value, note }: { label: string; value: string; note: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div className="admin__once">
      <Field label={label}>
        {(control) => <input {...control} readOnly value={value} onFocus={(e) => e.target.select()} />}
      </Field>
      <p className="form__hint">{note}</p>
      <button
        type="button"
        className="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value);
            setCopied('Copied');
          } catch {
            setCopied('Select the text and copy it');
          }
        }}
      >
        Copy {label.toLowerCase()}
      </button>
      {copied && <span role="status"> {copied}</span>}
    </div>
  );
}
