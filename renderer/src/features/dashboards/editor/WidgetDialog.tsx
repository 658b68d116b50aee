import { useState } from 'react';
import { Dialog } from '../../../ui/Dialog.tsx';
import { Checkbox, Field, TextField } from '../../../ui/Field.tsx';
import { WIDGET_LABELS, WIDGET_TYPES, type Widget } from '../document.ts';
import { WIDGET_FIELDS } from './fields.ts';
import { SettingsFields } from './SettingsFields.tsx';

/** Adds or edits one widget: its type, title, whether it shows, and its type's settings. */
export function WidgetDialog({
  initial,
  paneNames,
  paneId,
  bindingOptions,
  onSave,
  onClose,
}: {
  initial: Widget;
  paneNames: { id: string; name: string }[];
  paneId: string;
  bindingOptions: readonly string[];
  onSave: (widget: Widget, paneId: string) => void;
  onClose: () => void;
}) {
  const [widget, setWidget] = useState(initial);
  const [pane, setPane] = useState(paneId);
  return (
    <Dialog
      title={
        initial.title || initial.type !== 'text'
          ? `Widget ${initial.title || WIDGET_LABELS[initial.type]}`
          : 'Widget'
      }
      onClose={onClose}
    >
      <form
        className="form form--wide"
        onSubmit={(event) => {
          event.preventDefault();
          onSave(widget, pane);
        }}
      >
        <div className="form__row">
          <Field label="Widget type">
            {(control) => (
              <select
                {...control}
                value={widget.type}
                onChange={(e) => setWidget({ ...widget, type: e.target.value, settings: {} })}
              >
                {WIDGET_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {WIDGET_LABELS[type]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <TextField
            label="Widget title"
            maxLength={200}
            value={widget.title ?? ''}
            onChange={(title) => setWidget({ ...widget, title })}
          />
          <Field label="In pane">
            {(control) => (
              <select {...control} value={pane} onChange={(e) => setPane(e.target.value)}>
                {paneNames.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Checkbox
            label="Shown"
            checked={widget.enabled !== false}
            onChange={(enabled) => setWidget({ ...widget, enabled })}
          />
        </div>
        <SettingsFields
          key={widget.type}
          fields={WIDGET_FIELDS[widget.type] ?? []}
          settings={widget.settings ?? {}}
          onChange={(settings) => setWidget({ ...widget, settings })}
          bindingOptions={bindingOptions}
        />
        <button type="submit" className="button button--primary">
          Apply widget
        </button>
      </form>
    </Dialog>
  );
}
