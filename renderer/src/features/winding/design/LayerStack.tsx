// The layer stack: one list item per layer, named "Layer N (type)", with its form, its planning
// problem and (helical) its hint. Layers are added at the end, duplicated below themselves,
// deleted, and reordered by the buttons, by dragging, or by Alt+↑/↓ on the focused item.
import { type DragEvent, type KeyboardEvent, useRef, useState } from 'react';
import { type Analysis, helicalContext } from './analysis.ts';
import { JsonNumber, type JsonValue, layersOf, memberOf } from './document.ts';
import { FieldInput } from './FieldInput.tsx';
import { fieldsOf, LAYER_MODELS } from './fields.ts';
import { HelicalHint } from './HelicalHint.tsx';
import type { FormEdit } from './working-copy.ts';

export interface LayerStackProps {
  analysis: Analysis;
  onEdit(edit: FormEdit, typing?: string): void;
  disabled?: boolean;
}

/** A layer's kind as the loader reads it (the alias first, spec §2.4). */
export function layerKind(layer: JsonValue): string {
  if (!(layer instanceof Map)) return 'invalid';
  const tag = layer.has('wind_type') ? layer.get('wind_type') : layer.get('windType');
  return typeof tag === 'string' ? tag.trim() || 'unknown' : 'unknown';
}

export function LayerStack({ analysis, onEdit, disabled }: LayerStackProps) {
  const layers = layersOf(analysis.document ?? undefined);
  const items = useRef<(HTMLLIElement | null)[]>([]);
  const [dragged, setDragged] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);

  const move = (from: number, to: number) => {
    if (to < 0 || to >= layers.length) return;
    onEdit({ kind: 'layers', edit: { kind: 'move', from, to } });
    // Focus follows the layer, so Alt+↑ can be pressed again.
    requestAnimationFrame(() => items.current[to]?.focus());
  };

  const onKeyDown = (event: KeyboardEvent<HTMLLIElement>, index: number) => {
    if (event.target !== event.currentTarget || !event.altKey) return;
    if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      event.preventDefault();
      move(index, event.key === 'ArrowUp' ? index - 1 : index + 1);
    }
  };

  const drop = (event: DragEvent, index: number) => {
    event.preventDefault();
    if (dragged !== null) move(dragged, index);
    setDragged(null);
    setOver(null);
  };

  let terminalAt: number | null = null;
  return (
    <ol className="layer-stack" aria-label="Layers">
      {layers.map((layer, i) => {
        const n = i + 1;
        const kind = layerKind(layer);
        const terminal = kind === 'hoop' && memberOf(layer, 'terminal', null) === true;
        const afterTerminal = terminalAt !== null;
        if (terminal && terminalAt === null) terminalAt = n;
        const problem = analysis.planning.get(i) ?? null;
        const model = LAYER_MODELS[kind];
        const context = helicalContext(analysis, i);
        const layerErrors = analysis.fieldErrors.get(`layers.${i}`) ?? [];
        return (
          <li
            key={`${i}-${kind}`}
            ref={(element) => {
              items.current[i] = element;
            }}
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a layer is focused to move it with Alt+↑/↓
            tabIndex={0}
            aria-label={`Layer ${n} (${kind})`}
            className={`layer-card${over === i ? ' layer-card--over' : ''}${afterTerminal ? ' layer-card--flagged' : ''}`}
            draggable={!disabled}
            onDragStart={(event) => {
              event.dataTransfer.effectAllowed = 'move';
              event.dataTransfer.setData('text/plain', String(i));
              setDragged(i);
            }}
            onDragOver={(event) => {
              event.preventDefault();
              setOver(i);
            }}
            onDragLeave={() => setOver(null)}
            onDrop={(event) => drop(event, i)}
            onDragEnd={() => {
              setDragged(null);
              setOver(null);
            }}
            onKeyDown={(event) => onKeyDown(event, i)}
          >
            <header className="layer-card__head">
              <span className="layer-card__grip" aria-hidden="true">
                ⋮⋮
              </span>
              <h4>
                Layer {n} <span className="layer-card__kind">{kind}</span>
              </h4>
              {terminal && (
                <span className="layer-card__badge" data-testid="terminal-mark">
                  terminal
                </span>
              )}
              <span className="layer-card__actions">
                <button
                  type="button"
                  className="button"
                  aria-label={`Move layer ${n} up`}
                  disabled={disabled || i === 0}
                  onClick={() => move(i, i - 1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="button"
                  aria-label={`Move layer ${n} down`}
                  disabled={disabled || i === layers.length - 1}
                  onClick={() => move(i, i + 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="button"
                  aria-label={`Duplicate layer ${n}`}
                  disabled={disabled}
                  onClick={() => onEdit({ kind: 'layers', edit: { kind: 'duplicate', index: i } })}
                >
                  Duplicate
                </button>
                <button
                  type="button"
                  className="button"
                  aria-label={`Delete layer ${n}`}
                  disabled={disabled}
                  onClick={() => onEdit({ kind: 'layers', edit: { kind: 'delete', index: i } })}
                >
                  Delete
                </button>
              </span>
            </header>
            {afterTerminal && (
              <p className="layer-card__flag" data-testid="after-terminal">
                Follows the terminal layer {terminalAt}: a terminal hoop must be the last layer.
              </p>
            )}
            {layerErrors.map((message) => (
              <p key={message} className="design-field__error">
                {message}
              </p>
            ))}
            {problem && problem.field === null && (
              <p className="design-field__error" data-testid="layer-problem">
                {problem.message}
              </p>
            )}
            {model ? (
              <div className="layer-card__fields">
                {fieldsOf(model)
                  .filter((field) => field.key !== 'windType')
                  .map((field) => (
                    <FieldInput
                      key={field.key}
                      field={field}
                      value={memberOf(layer, field.key, field.alias)}
                      disabled={disabled}
                      errors={[
                        ...(analysis.fieldErrors.get(`layers.${i}.${field.key}`) ?? []),
                        ...(problem?.field === field.key ? [problem.message] : []),
                      ]}
                      onChange={(value) =>
                        onEdit(
                          { kind: 'field', place: ['layers', i], field, value },
                          `layers.${i}.${field.key}`,
                        )
                      }
                    />
                  ))}
              </div>
            ) : (
              <p className="layer-card__note">This kind of layer is edited in the Source tab.</p>
            )}
            {context && (
              <HelicalHint
                index={n}
                {...context}
                onPatternNumber={(p) =>
                  onEdit({
                    kind: 'field',
                    place: ['layers', i],
                    field: { key: 'patternNumber', alias: 'pattern_number' },
                    value: new JsonNumber(p, String(p)),
                  })
                }
                onWindAngle={(angle) =>
                  onEdit({
                    kind: 'field',
                    place: ['layers', i],
                    field: { key: 'windAngle', alias: 'wind_angle' },
                    value: new JsonNumber(angle, null),
                  })
                }
              />
            )}
          </li>
        );
      })}
    </ol>
  );
}
