// A labelled select over a fixed list of choices (baud rates, axis formats, jog steps and feeds):
// the label is both visible and the accessible name, and the value keeps its own type.

export interface ChoiceSelectProps<T extends string | number> {
  label: string;
  value: T;
  choices: readonly NoInfer<T>[];
  onChange(value: NoInfer<T>): void;
  disabled?: boolean;
  /** What an option shows; the value itself by default. */
  show?: (value: NoInfer<T>) => string;
}

export function ChoiceSelect<T extends string | number>({
  label,
  value,
  choices,
  onChange,
  disabled = false,
  show = String,
}: ChoiceSelectProps<T>) {
  return (
    <label>
      {label}{' '}
      <select
        aria-label={label}
        value={value}
        onChange={(event) => {
          const chosen = choices.find((choice) => String(choice) === event.target.value);
          if (chosen !== undefined) onChange(chosen);
        }}
        disabled={disabled}
      >
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {show(choice)}
          </option>
        ))}
      </select>
    </label>
  );
}
