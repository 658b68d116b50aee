import { useState } from 'react';
import { Dialog } from '../../../ui/Dialog.tsx';
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
        <div className="form__field">
          <label htmlFor="settings-title">Dashboard title</label>
          <input
            id="settings-title"
            required
            maxLength={200}
            value={draft.title}
            onChange={(e) => setDraft({ ...draft, title: e.target.value })}
          />
        </div>
        <div className="form__row">
          <div className="form__field">
            <label htmlFor="settings-columns">Columns</label>
            <input
              id="settings-columns"
              type="number"
              min={1}
              max={12}
              value={draft.columns}
              onChange={(e) =>
                setDraft({ ...draft, columns: Math.max(1, Math.min(12, Number(e.target.value) || 1)) })
              }
            />
          </div>
          <div className="form__field">
            <label htmlFor="settings-width">Width</label>
            <select
              id="settings-width"
              value={draft.width}
              onChange={(e) => setDraft({ ...draft, width: e.target.value })}
            >
              <option value="sm">Small (960 px)</option>
              <option value="md">Medium (1280 px)</option>
              <option value="lg">Large (1600 px)</option>
              <option value="xl">Extra large (1920 px)</option>
              <option value="full">Full window</option>
            </select>
          </div>
        </div>
        <div className="form__field">
          <label htmlFor="settings-image">Thumbnail image URL</label>
          <input
            id="settings-image"
            type="url"
            value={draft.image ?? ''}
            onChange={(e) => setDraft({ ...draft, image: e.target.value || null })}
          />
        </div>
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
