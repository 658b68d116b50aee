import { useId } from 'react';
import { passwordChecks } from './password-policy.ts';

/** A new password with the policy shown beside it, each rule ticked off as it is met. */
export function NewPasswordField({
  label = 'Password',
  value,
  onChange,
}: {
  label?: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const rulesId = `${id}-rules`;
  const checks = passwordChecks(value);
  return (
    <div className="form__field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="password"
        autoComplete="new-password"
        value={value}
        aria-describedby={rulesId}
        onChange={(event) => onChange(event.target.value)}
      />
      <ul id={rulesId} className="password-rules" aria-live="polite">
        {checks.map((check) => (
          <li key={check.label} className={check.met ? 'password-rules__met' : 'password-rules__missing'}>
            <span aria-hidden="true">{check.met ? '✓' : '·'}</span> {check.label}
            <span className="visually-hidden">{check.met ? ' (met)' : ' (missing)'}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
