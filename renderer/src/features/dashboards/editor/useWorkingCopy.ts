// The editor's working copy of one dashboard, as a reducer over what the screen must never lose track
// of: the revision it was made on (`base`), the edited document (`draft`), whether it differs, a save
// someone else made meanwhile (`incoming`), a save that conflicted (`conflict`), and what to tell the
// person (`notice`, `problem`). The hook around it saves with the base revision, reloads and restores.
import { useCallback, useEffect, useReducer } from 'react';
import { useClient, useMutation } from 'urql';
import { errorCode, errorExtension, errorMessage } from '../../../lib/graphql/client.ts';
import {
  DashboardCollaboratorsDocument,
  DashboardRevisionsDocument,
  UpdateDashboardDocument,
} from '../../../lib/graphql/generated.ts';
import { type DashboardDocument, documentInput, documentOf, WRITER } from '../document.ts';
import { type DashboardRecord, useLiveDashboard } from '../useDashboard.ts';

export interface Incoming {
  revision: number;
  at: string;
  who: string | null;
}

export interface WorkingCopy {
  base: DashboardRecord | null;
  draft: DashboardDocument | null;
  dirty: boolean;
  incoming: Incoming | null;
  /** The revision a refused save found, until the person reloads or overwrites. */
  conflict: number | null;
  notice: string | null;
  problem: string | null;
}

export type WorkingCopyAction =
  /** A read of the dashboard: the first becomes the working copy, a newer one is someone else's save. */
  | { type: 'read'; dashboard: DashboardRecord }
  | { type: 'edited'; draft: DashboardDocument; notice?: string }
  | { type: 'author'; who: string }
  | { type: 'keepEditing' }
  | { type: 'reloaded'; latest: DashboardRecord }
  | { type: 'saving' }
  | { type: 'saved'; saved: DashboardRecord }
  | { type: 'conflicted'; revision: number }
  | { type: 'problem'; problem: string }
  | { type: 'restored'; restored: DashboardRecord };

export const EMPTY_COPY: WorkingCopy = {
  base: null,
  draft: null,
  dirty: false,
  incoming: null,
  conflict: null,
  notice: null,
  problem: null,
};

export function workingCopy(state: WorkingCopy, action: WorkingCopyAction): WorkingCopy {
  switch (action.type) {
    case 'read': {
      const { dashboard } = action;
      if (!state.base) return { ...state, base: dashboard, draft: documentOf(dashboard) };
      if (
        dashboard.documentRevision > state.base.documentRevision &&
        dashboard.documentRevision !== state.incoming?.revision &&
        state.conflict === null
      )
        return {
          ...state,
          incoming: { revision: dashboard.documentRevision, at: dashboard.updatedAt, who: null },
        };
      return state;
    }
    case 'edited':
      return { ...state, draft: action.draft, dirty: true, notice: action.notice ?? null };
    case 'author':
      return state.incoming ? { ...state, incoming: { ...state.incoming, who: action.who } } : state;
    case 'keepEditing':
      return { ...state, incoming: null };
    case 'reloaded':
      return {
        ...state,
        base: action.latest,
        draft: documentOf(action.latest),
        dirty: false,
        incoming: null,
        conflict: null,
        problem: null,
        notice: `Reloaded revision ${action.latest.documentRevision}`,
      };
    case 'saving':
      return { ...state, problem: null };
    case 'saved':
      return {
        ...state,
        base: action.saved,
        dirty: false,
        conflict: null,
        incoming: null,
        notice: `Saved revision ${action.saved.documentRevision}`,
      };
    case 'conflicted':
      return { ...state, conflict: action.revision, incoming: null };
    case 'problem':
      return { ...state, problem: action.problem };
    case 'restored':
      return {
        ...state,
        base: action.restored,
        draft: documentOf(action.restored),
        dirty: false,
        incoming: null,
        notice: `Restored as revision ${action.restored.documentRevision}`,
      };
  }
}

/** Who made the incoming revision, when the caller may see it (managers see collaborators' emails). */
function useAuthor(
  dashboardId: string,
  incoming: Incoming | null,
  canManage: boolean,
  setWho: (who: string) => void,
) {
  const client = useClient();
  useEffect(() => {
    if (!incoming || incoming.who || !canManage) return;
    let stop = false;
    (async () => {
      const revisions = await client
        .query(DashboardRevisionsDocument, { id: dashboardId }, { requestPolicy: 'network-only' })
        .toPromise();
      const author = revisions.data?.dashboardRevisions.find(
        (r) => r.documentRevision === incoming.revision,
      )?.authorUserId;
      if (!author) return;
      const people = await client
        .query(DashboardCollaboratorsDocument, { id: dashboardId }, { requestPolicy: 'network-only' })
        .toPromise();
      const email = people.data?.dashboardCollaborators.find((c) => c.userId === author)?.email;
      if (!stop && email) setWho(email);
    })();
    return () => {
      stop = true;
    };
  }, [client, dashboardId, incoming, canManage, setWho]);
}

export function useWorkingCopy(id: string) {
  const { dashboard, query, pushed, reload } = useLiveDashboard(id);
  const [state, dispatch] = useReducer(workingCopy, EMPTY_COPY);
  const [saving, save] = useMutation(UpdateDashboardDocument);

  useEffect(() => {
    if (dashboard) dispatch({ type: 'read', dashboard });
  }, [dashboard]);
  // Work in progress is never dropped silently: leaving the page with unsaved changes asks first.
  useEffect(() => {
    if (!state.dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [state.dirty]);
  const setWho = useCallback((who: string) => dispatch({ type: 'author', who }), []);
  useAuthor(id, state.incoming, state.base?.canManageSharing ?? false, setWho);

  const edit = (draft: DashboardDocument, notice?: string) =>
    dispatch(notice === undefined ? { type: 'edited', draft } : { type: 'edited', draft, notice });

  /** Saves the draft as a successor of `revision` (the base, or the conflicting one to overwrite it). */
  const saveOn = async (revision: number) => {
    if (!state.draft) return;
    dispatch({ type: 'saving' });
    const answer = await save({
      id,
      input: {
        ...documentInput({ ...state.draft, version: WRITER }),
        expectedDocumentRevision: revision,
      },
    });
    const saved = answer.data?.updateDashboard;
    if (saved) dispatch({ type: 'saved', saved });
    else if (errorCode(answer.error) === 'CONFLICT') {
      const current = errorExtension(answer.error, 'currentRevision');
      dispatch({
        type: 'conflicted',
        revision: typeof current === 'number' ? current : (dashboard?.documentRevision ?? revision),
      });
    } else
      dispatch({ type: 'problem', problem: errorMessage(answer.error) ?? 'The dashboard was not saved' });
  };

  const reloadFromServer = () => {
    const latest = dashboard ?? state.base;
    if (!latest) return;
    dispatch({ type: 'reloaded', latest });
    reload();
  };

  return {
    ...state,
    /** The dashboard as last read or pushed (null: deleted or unreadable). */
    dashboard,
    query,
    gone: pushed && dashboard === null,
    saving: saving.fetching,
    edit,
    save: saveOn,
    reload: reloadFromServer,
    restore: (restored: DashboardRecord) => dispatch({ type: 'restored', restored }),
    keepEditing: () => dispatch({ type: 'keepEditing' }),
    setProblem: (problem: string) => dispatch({ type: 'problem', problem }),
  };
}
