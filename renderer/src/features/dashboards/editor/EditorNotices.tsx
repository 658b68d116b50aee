// What the editor tells the person about the working copy: someone else's save (reload or keep
// editing), a save that conflicted (reload or overwrite), a failed save, a dashboard that went away,
// and the outcome of the last action.
import { Problem } from '../../../ui/Field.tsx';
import type { Incoming } from './useWorkingCopy.ts';

export function EditorNotices({
  incoming,
  conflict,
  dirty,
  problem,
  gone,
  notice,
  saving,
  onReload,
  onKeepEditing,
  onOverwrite,
}: {
  incoming: Incoming | null;
  conflict: number | null;
  dirty: boolean;
  problem: string | null;
  gone: boolean;
  notice: string | null;
  saving: boolean;
  onReload: () => void;
  onKeepEditing: () => void;
  onOverwrite: (revision: number) => void;
}) {
  return (
    <>
      {incoming && (
        <div className="editor-notice" role="status">
          <p>
            {incoming.who ?? 'Someone else'} saved this dashboard at{' '}
            {new Date(incoming.at).toLocaleTimeString()} (revision {incoming.revision}).
            {dirty ? ' Your unsaved changes are still here.' : ''}
          </p>
          <div className="toolbar">
            <button type="button" className="button" onClick={onReload}>
              Reload
            </button>
            <button type="button" className="button" onClick={onKeepEditing}>
              Keep editing
            </button>
          </div>
        </div>
      )}
      {conflict !== null && (
        <div className="editor-notice editor-notice--conflict" role="alert">
          <p>
            This dashboard was changed since you loaded it (it is now at revision {conflict}). Reload to take
            the saved version and drop your changes, or overwrite it with yours.
          </p>
          <div className="toolbar">
            <button type="button" className="button" onClick={onReload}>
              Reload
            </button>
            <button
              type="button"
              className="button button--danger"
              disabled={saving}
              onClick={() => onOverwrite(conflict)}
            >
              Overwrite
            </button>
          </div>
        </div>
      )}
      <Problem message={problem} />
      {gone && (
        <p className="form__problem" role="alert">
          This dashboard was deleted or you can no longer open it. Your working copy is still here: use Export
          JSON to keep it.
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
    </>
  );
}
