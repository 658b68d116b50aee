// The Design view: build or edit a `.wind` definition on screen — mandrel, tow and machine forms,
// the layer stack, or its text in the Source tab — and see it planned and drawn as it changes.
import { useEffect, useId, useRef, useState } from 'react';
import { DefinitionView, ProgramErrorView } from '../DefinitionView.tsx';
import type { PreviewClient } from '../preview/client.ts';
import type { PlanOptionsState } from '../preview/protocol.ts';
import { ToolpathView } from '../viewer/ToolpathView.tsx';
import { UnwrappedView } from '../viewer/UnwrappedView.tsx';
import type { Analysis } from './analysis.ts';
import { DomesForm } from './DomesForm.tsx';
import { memberOf, type Place } from './document.ts';
import { BLANK, TEMPLATES } from './examples.ts';
import { FieldInput } from './FieldInput.tsx';
import { type FieldSpec, type FormModel, fieldsOf } from './fields.ts';
import { LayerStack } from './LayerStack.tsx';
import { type LayerKind, newLayer } from './new-layer.ts';
import { LazySourceTab } from './source/LazySourceTab.tsx';
import type { DesignControls } from './useDesign.ts';
import type { FormEdit } from './working-copy.ts';
import './design.css';

export interface DesignViewProps {
  design: DesignControls;
  client: PreviewClient;
  options: PlanOptionsState;
  onOptions(options: PlanOptionsState): void;
  onSaveGcode(): void;
}

type EditorTab = 'forms' | 'source';

export function DesignView({ design, client, options, onOptions, onSaveGcode }: DesignViewProps) {
  const { copy, analysis, preview } = design;
  const ids = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [template, setTemplate] = useState(0);
  const [tab, setTab] = useState<EditorTab>('forms');
  const [command, setCommand] = useState<number | undefined>(undefined);
  const designRef = useRef(design);
  designRef.current = design;

  // Ctrl+S saves; Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y undo and redo every edit, forms and source alike.
  // An editor that handled the key itself (the source editor calls undo/redo) has prevented it.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || !(event.ctrlKey || event.metaKey) || event.altKey) return;
      const key = event.key.toLowerCase();
      const current = designRef.current;
      if (key === 's') {
        event.preventDefault();
        if (current.copy) void current.save(event.shiftKey);
      } else if (key === 'z' && !event.shiftKey) {
        event.preventDefault();
        current.undo();
      } else if ((key === 'z' && event.shiftKey) || key === 'y') {
        event.preventDefault();
        current.redo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const open = () => {
    if (design.openNative) void design.openNative();
    else inputRef.current?.click();
  };

  const good = preview.good;
  const failing = analysis?.jsonError ?? analysis?.schemaReport ?? null;
  const dimmed = good !== null && (preview.failure !== null || failing !== null);

  return (
    <div className="design">
      <div className="design__toolbar toolbar">
        <label className="design__template">
          Start from{' '}
          <select value={template} onChange={(event) => setTemplate(Number(event.target.value))}>
            {TEMPLATES.map((entry, k) => (
              <option key={entry.name} value={k}>
                {entry.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => design.startNew(TEMPLATES[template] ?? BLANK)}>
          New definition
        </button>
        <button type="button" onClick={open}>
          Open definition
        </button>
        <input
          ref={inputRef}
          type="file"
          accept=".wind,.json"
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Choose a .wind file to design"
          data-testid="design-file-input"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) void design.openFile(file);
          }}
        />
        <button type="button" disabled={!copy} onClick={() => void design.save(false)}>
          Save definition
        </button>
        <button type="button" disabled={!copy} onClick={() => void design.save(true)}>
          Save as
        </button>
        <button type="button" disabled={!copy?.past.length} onClick={design.undo}>
          Undo
        </button>
        <button type="button" disabled={!copy?.future.length} onClick={design.redo}>
          Redo
        </button>
        {copy && (
          <span className="design__name" data-testid="design-name">
            {copy.name}
            {design.dirty ? ' — unsaved changes' : ''}
          </span>
        )}
      </div>
      <p role="status" className="winding__saved" data-testid="design-note">
        {design.note ?? ''}
      </p>

      {!copy || !analysis ? (
        <p className="page__empty">
          Choose what to start from and press “New definition”, or open a .wind file to edit it.
        </p>
      ) : (
        <div className="design__layout">
          <div className="design__editor">
            <div role="tablist" aria-label="Definition editor" className="design__tabs">
              {(['forms', 'source'] as const).map((which) => (
                <button
                  key={which}
                  type="button"
                  role="tab"
                  id={`${ids}-${which}-tab`}
                  aria-controls={`${ids}-${which}`}
                  aria-selected={tab === which}
                  onClick={() => setTab(which)}
                >
                  {which === 'forms' ? 'Forms' : 'Source'}
                </button>
              ))}
            </div>
            {tab === 'forms' ? (
              <div role="tabpanel" id={`${ids}-forms`} aria-labelledby={`${ids}-forms-tab`}>
                {analysis.jsonError ? (
                  <p className="design-field__error" role="alert">
                    {analysis.jsonError} — fix the text in the Source tab to edit it here.
                  </p>
                ) : (
                  <Forms analysis={analysis} onEdit={design.edit} />
                )}
              </div>
            ) : (
              <div role="tabpanel" id={`${ids}-source`} aria-labelledby={`${ids}-source-tab`}>
                <LazySourceTab
                  text={copy.text}
                  onChange={design.editSource}
                  onUndo={design.undo}
                  onRedo={design.redo}
                />
              </div>
            )}
          </div>
          <div className="design__preview">
            {failing !== null ? (
              <div className="program-error" role="alert">
                <h3>The definition is not valid</h3>
                <pre data-testid="design-errors">{failing}</pre>
              </div>
            ) : (
              preview.failure && <ProgramErrorView error={preview.failure.error} />
            )}
            {preview.planning && <p className="design__planning">Planning…</p>}
            {good && (
              <>
                <ToolpathView
                  geometry={good.geometry}
                  client={client}
                  dimmed={dimmed}
                  onTimeline={setCommand}
                />
                <UnwrappedView geometry={good.geometry} client={client} dimmed={dimmed} command={command} />
                <DefinitionView
                  result={good}
                  options={options}
                  onOptions={onOptions}
                  onSave={onSaveGcode}
                  busy={false}
                />
              </>
            )}
          </div>
        </div>
      )}
    </div>
  );
}

function Forms({ analysis, onEdit }: { analysis: Analysis; onEdit(edit: FormEdit, typing?: string): void }) {
  const document = analysis.document ?? undefined;
  const section = (title: string, model: FormModel, place: Place, only?: readonly string[]) => {
    const object = place.length === 0 ? document : memberOf(document, place[0], null);
    const prefix = place.length === 0 ? '' : `${place[0]}.`;
    const fields = fieldsOf(model).filter((field) => !only || only.includes(field.key));
    return (
      <fieldset className="design__section">
        <legend>{title}</legend>
        {fields.map((field: FieldSpec) => (
          <FieldInput
            key={field.key}
            field={field}
            value={memberOf(object, field.key, field.alias)}
            errors={analysis.fieldErrors.get(`${prefix}${field.key}`) ?? []}
            onChange={(value) => onEdit({ kind: 'field', place, field, value }, `${prefix}${field.key}`)}
          />
        ))}
        {(analysis.fieldErrors.get(prefix.slice(0, -1)) ?? []).map((message) => (
          <p key={message} className="design-field__error">
            {message}
          </p>
        ))}
      </fieldset>
    );
  };
  const add = (kind: LayerKind) =>
    onEdit({ kind: 'layers', edit: { kind: 'add', layer: newLayer(kind, analysis.definition) } });
  return (
    <div className="design__forms">
      {section(
        'Mandrel',
        'MandrelParameters',
        ['mandrelParameters'],
        ['diameter', 'windLength', 'endDiameter', 'meridianSegments'],
      )}
      <DomesForm analysis={analysis} onEdit={onEdit} />
      {section('Tow', 'TowParameters', ['towParameters'])}
      {section('Machine defaults', 'WindDefinition', [], ['defaultFeedRate', 'schemaVersion'])}
      {section('Machine (delivery eye)', 'Machine', ['machine'])}
      <section className="design__layers" aria-label="Layer stack">
        <h3>Layers</h3>
        {(analysis.fieldErrors.get('layers') ?? []).map((message) => (
          <p key={message} className="design-field__error">
            {message}
          </p>
        ))}
        <LayerStack analysis={analysis} onEdit={onEdit} />
        <div className="toolbar">
          <button type="button" onClick={() => add('hoop')}>
            Add hoop layer
          </button>
          <button type="button" onClick={() => add('helical')}>
            Add helical layer
          </button>
          <button type="button" onClick={() => add('skip')}>
            Add skip layer
          </button>
          <button type="button" onClick={() => add('geodesic')}>
            Add geodesic layer
          </button>
        </div>
      </section>
    </div>
  );
}
