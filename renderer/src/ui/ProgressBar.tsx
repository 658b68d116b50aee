/** A labelled progress bar; `value` undefined shows an indeterminate bar. */
export function ProgressBar({
  label,
  value,
  max = 1,
  text,
}: {
  label: string;
  value?: number;
  max?: number;
  text?: string;
}) {
  return (
    <div className="progress">
      <progress aria-label={label} value={value} max={max} />
      {text !== undefined && <span className="progress__text">{text}</span>}
    </div>
  );
}
