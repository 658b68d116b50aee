import { useState } from 'react';
import { Dialog } from '../../../ui/Dialog.tsx';
import { Field, TextField } from '../../../ui/Field.tsx';
import { type DashboardDocument, reflow } from '../document.ts';
import type { FieldSpec } from './fields.ts';
import { SettingsFields } from './SettingsFields.tsx';

const SETTINGS_FIELDS: FieldSpec[] = [
  { key: 'theme', label: 'Theme', kind: 'choice', options: ['auto', 'light', 'dark', 'high-contrast'] },
  {
    key: 'style',
    label: 'Dashboard CSS (trusted)',
    kind: 'longtext',
    hint: 'Needs the TRUSTED execution mode',
  },
  {
    key: 'script',
    label: 'Dashboard script (trusted)',
    kind: 'longtext',
    hint: 'Stored and exported, never run by Towpath',
  },
  {
    key: 'resources',
    label: 'Resources (trusted)',
    kind: 'list',
    hint: 'Stored and exported, never loaded by Towpath',
  },
];

/** Title, grid, width and the dashboard's own settings. Fewer columns re-flow the panes (§4). */
export function SettingsDialog({
  document,
  onApply,
  onClose,
}: {
  document: DashboardDocument;
  onApply: (document: DashboardDocument) => void;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState(document);
  return (
    <Dialog title="Dashboard settings" onClose={onClose}>
      <form
        className="form form--wide"
        onSubmit={(event) => {
          event.preventDefault();
          onApply(
            draft.columns < document.columns
              ? { ...draft, panes: reflow(draft.panes, draft.columns) }
              : draft,
          );
        }}
      >
        <TextField
          label="Dashboard title"
          required
          maxLength={200}
          value={draft.title}
          onChange={(title) => setDraft({ ...draft, title })}
        />
        <div className="form__row">
          <TextField
            label="Columns"
            type="number"
            min={1}
            max={12}
            value={draft.columns}
            onChange={(columns) =>
              setDraft({ ...draft, columns: Math.max(1, Math.min(12, Number(columns) || 1)) })
            }
          />
          <Field label="Width">
            {(control) => (
              <select
                {...control}
                value={draft.width}
                onChange={(e) => setDraft({ ...draft, width: e.target.value })}
              >
                <option value="sm">Small (960 px)</option>
                <option value="md">Medium (1280 px)</option>
                <option value="lg">Large (1600 px)</option>
                <option value="xl">Extra large (1920 px)</option>
                <option value="full">Full window</option>
              </select>
            )}
          </Field>
        </div>
        <TextField
          label="Thumbnail image URL"
          type="url"
          value={draft.image ?? ''}
          onChange={(image) => setDraft({ ...draft, image: image || null })}
        />
        <SettingsFields
          fields={SETTINGS_FIELDS}
          settings={draft.settings}
          onChange={(settings) => setDraft({ ...draft, settings })}
        />
        <button type="submit" className="button button--primary">
          Apply settings
        </button>
      </form>
    </Dialog>
  );
}
