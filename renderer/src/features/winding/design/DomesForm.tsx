// The mandrel's domes (a pressure vessel): none, the same dome at both ends, or a start and an end
// dome apart; each dome its type, polar opening and, when ellipsoidal, its aspect. The fields and
// their words come from the engine's schema and the messages are the validator's, at the field.
// A profile dome's points are a list of pairs, which stays in the Source tab.
import { useId } from 'react';
import type { Analysis } from './analysis.ts';
import { type JsonObject, type JsonValue, memberOf, type PathStep } from './document.ts';
import { FieldInput } from './FieldInput.tsx';
import { fieldsOf } from './fields.ts';
import type { FormEdit } from './working-copy.ts';

export type DomesMode = 'none' | 'both' | 'apart';
type End = 'both' | 'start' | 'end';

const DOMES: readonly PathStep[] = [
  { key: 'mandrelParameters', alias: 'mandrel_parameters' },
  { key: 'domes', alias: null },
];
const ID = 'mandrelParameters.domes';

const MODES: readonly { mode: DomesMode; label: string }[] = [
  { mode: 'none', label: 'None (a tube or a cone)' },
  { mode: 'both', label: 'The same dome at both ends' },
  { mode: 'apart', label: 'A start and an end dome' },
];

const LEGENDS: Record<End, string> = {
  both: 'Dome at both ends',
  start: 'Start dome (before z = 0)',
  end: 'End dome (after the wind length)',
};

const given = (value: JsonValue | undefined): value is JsonObject => value instanceof Map;

/** Which choice the document's domes are: `both` wins when given, as the validator reads it. */
export function domesModeOf(domes: JsonValue | undefined): DomesMode {
  if (!given(domes)) return 'none';
  return given(domes.get('both')) ? 'both' : 'apart';
}

/** A new dome: a hemisphere, its polar opening still to be given (the field says "Field required"). */
const newDome = (): JsonObject => new Map<string, JsonValue>([['type', 'hemispherical']]);

/** The domes after choosing `mode`: what was there carries over (both → start and end, start → both). */
export function domesFor(mode: DomesMode, domes: JsonValue | undefined): JsonValue | undefined {
  if (mode === 'none') return undefined;
  const old = given(domes) ? domes : new Map<string, JsonValue>();
  const pick = (...ends: End[]) => {
    for (const end of ends) {
      const dome = old.get(end);
      if (given(dome)) return dome;
    }
    return newDome();
  };
  if (mode === 'both') return new Map([['both', pick('both', 'start', 'end')]]);
  return new Map([
    ['start', pick('start', 'both', 'end')],
    ['end', pick('end', 'both', 'start')],
  ]);
}

export function DomesForm({
  analysis,
  onEdit,
}: {
  analysis: Analysis;
  onEdit(edit: FormEdit, typing?: string): void;
}) {
  const name = useId();
  const mandrel = memberOf(analysis.document ?? undefined, 'mandrelParameters', 'mandrel_parameters');
  const domes = memberOf(mandrel, 'domes', null);
  const mode = domesModeOf(domes);
  const errorsAt = (id: string) => analysis.fieldErrors.get(id) ?? [];
  const messages = (id: string) =>
    errorsAt(id).map((message) => (
      <p key={message} className="design-field__error">
        {message}
      </p>
    ));

  const domeFields = (end: End) => {
    const dome = memberOf(domes, end, null);
    const path = [...DOMES, { key: end, alias: null }];
    const fields = fieldsOf('Dome').filter(
      (field) => field.key !== 'aspect' || memberOf(dome, 'type', null) === 'ellipsoidal',
    );
    return (
      <fieldset key={end} className="design__section design__dome">
        <legend>{LEGENDS[end]}</legend>
        {fields.map((field) => {
          const id = `${ID}.${end}.${field.key}`;
          return (
            <FieldInput
              key={field.key}
              field={field}
              value={memberOf(dome, field.key, field.alias)}
              errors={errorsAt(id)}
              onChange={(value) =>
                onEdit({ kind: 'path', path: [...path, { key: field.key, alias: field.alias }], value }, id)
              }
            />
          );
        })}
        {messages(`${ID}.${end}`)}
      </fieldset>
    );
  };

  return (
    <fieldset className="design__section">
      <legend>Domes</legend>
      <div role="radiogroup" aria-label="Domes" className="design__choice">
        {MODES.map((choice) => (
          <label key={choice.mode}>
            <input
              type="radio"
              name={name}
              checked={mode === choice.mode}
              onChange={() => onEdit({ kind: 'path', path: DOMES, value: domesFor(choice.mode, domes) })}
            />{' '}
            {choice.label}
          </label>
        ))}
      </div>
      {messages(ID)}
      {mode === 'both' && domeFields('both')}
      {mode === 'apart' && (['start', 'end'] as const).map(domeFields)}
      {mode !== 'none' && (
        <p className="design-field__hint">
          A profile dome’s points (its meridian as [z, r] pairs) are edited in the Source tab.
        </p>
      )}
    </fieldset>
  );
}
