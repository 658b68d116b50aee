// The editor's buttons: save, add, the dialogs, export and import, and back to the view.
import type { DashboardDocument } from '../document.ts';
import { ImportButton } from '../ImportButton.tsx';

export type ToolbarDialog = 'datasources' | 'new-datasource' | 'settings' | 'share' | 'history';

export function EditorToolbar({
  saving,
  canManageSharing,
  onSave,
  onAddPane,
  onAddWidget,
  onOpen,
  onExport,
  onImport,
  onProblem,
  onView,
}: {
  saving: boolean;
  canManageSharing: boolean;
  onSave: () => void;
  onAddPane: () => void;
  onAddWidget: () => void;
  onOpen: (dialog: ToolbarDialog) => void;
  onExport: () => void;
  onImport: (document: DashboardDocument) => void;
  onProblem: (message: string) => void;
  onView: () => void;
}) {
  return (
    <div className="toolbar" role="toolbar" aria-label="Editor">
      <button type="button" className="button button--primary" disabled={saving} onClick={onSave}>
        Save
      </button>
      <button type="button" className="button" onClick={onAddPane}>
        Add pane
      </button>
      <button type="button" className="button" onClick={onAddWidget}>
        Add widget
      </button>
      <button type="button" className="button" onClick={() => onOpen('new-datasource')}>
        Add datasource
      </button>
      <button type="button" className="button" onClick={() => onOpen('datasources')}>
        Datasources
      </button>
      <button type="button" className="button" onClick={() => onOpen('settings')}>
        Settings
      </button>
      {canManageSharing && (
        <button type="button" className="button" onClick={() => onOpen('share')}>
          Share
        </button>
      )}
      <button type="button" className="button" onClick={() => onOpen('history')}>
        History
      </button>
      <button type="button" className="button" onClick={onExport}>
        Export JSON
      </button>
      <ImportButton onDocument={onImport} onProblem={onProblem} />
      <button type="button" className="button" onClick={onView}>
        View
      </button>
    </div>
  );
}
