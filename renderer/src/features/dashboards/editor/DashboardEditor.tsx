// /dashboards/:id/edit — a working copy of the document, saved with the revision it was made on.
// The editor subscribes to its dashboard: when someone else saves, it says so at once and offers to
// reload or keep editing; a save that still conflicts offers reload or overwrite (a new save on the
// current revision). Nothing is ever dropped without the person choosing it.
import { useEffect, useMemo, useState } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { errorCode, errorExtension, errorMessage } from '../../../lib/graphql/client.ts';
import {
  BrokerProfilesDocument,
  CredentialProfilesDocument,
  DashboardCollaboratorsDocument,
  DashboardRevisionsDocument,
  UpdateDashboardDocument,
} from '../../../lib/graphql/generated.ts';
import { useMe } from '../../../lib/graphql/me.ts';
import { followLink, navigate } from '../../../lib/location.ts';
import { Problem } from '../../../ui/Field.tsx';
import {
  allWidgetIds,
  type DashboardDocument,
  documentInput,
  documentOf,
  freePlace,
  missingProfileWarnings,
  newId,
  type Pane,
  type Widget,
  WRITER,
} from '../document.ts';
import { downloadExport } from '../download.ts';
import { HistoryPanel } from '../HistoryPanel.tsx';
import { ImportButton } from '../ImportButton.tsx';
import { useDatasourceHub } from '../realtime/useHub.ts';
import { ShareDialog } from '../ShareDialog.tsx';
import { type DashboardRecord, useLiveDashboard } from '../useDashboard.ts';
import { bindingOptions } from './binding-options.ts';
import { DatasourcesDialog } from './DatasourcesDialog.tsx';
import { EditorGrid, paneName } from './EditorGrid.tsx';
import { SettingsDialog } from './SettingsDialog.tsx';
import { WidgetDialog } from './WidgetDialog.tsx';

type Dialogs =
  | { kind: 'widget'; paneId: string; widget: Widget; isNew: boolean }
  | { kind: 'datasources'; startWithNew: boolean }
  | { kind: 'settings' }
  | { kind: 'share' }
  | { kind: 'history' }
  | null;

interface Incoming {
  revision: number;
  at: string;
  who: string | null;
}

/** Who made a revision, when the caller may see it (managers see collaborators' emails). */
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

export function DashboardEditor({ id }: { id: string }) {
  const { dashboard, query, pushed, reload } = useLiveDashboard(id);
  const { user } = useMe();
  const [base, setBase] = useState<DashboardRecord | null>(null);
  const [draft, setDraft] = useState<DashboardDocument | null>(null);
  const [dirty, setDirty] = useState(false);
  const [selectedPane, setSelectedPane] = useState<string | null>(null);
  const [dialog, setDialog] = useState<Dialogs>(null);
  const [incoming, setIncoming] = useState<Incoming | null>(null);
  const [conflict, setConflict] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, save] = useMutation(UpdateDashboardDocument);
  const mayReadProfiles = user?.role === 'EDITOR' || user?.role === 'ADMIN';
  const [credentials] = useQuery({ query: CredentialProfilesDocument, pause: !mayReadProfiles });
  const [brokers] = useQuery({ query: BrokerProfilesDocument, pause: !mayReadProfiles });

  // The first read becomes the working copy; later reads are someone else's saves.
  useEffect(() => {
    if (!dashboard) return;
    if (!base) {
      setBase(dashboard);
      setDraft(documentOf(dashboard));
      return;
    }
    if (
      dashboard.documentRevision > base.documentRevision &&
      dashboard.documentRevision !== incoming?.revision &&
      conflict === null
    )
      setIncoming({ revision: dashboard.documentRevision, at: dashboard.updatedAt, who: null });
  }, [dashboard, base, incoming, conflict]);
  // Work in progress is never dropped silently: leaving the page with unsaved changes asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
  const gone = pushed && dashboard === null;
  useAuthor(id, incoming, base?.canManageSharing ?? false, (who) =>
    setIncoming((i) => (i ? { ...i, who } : i)),
  );

  const savedSources = useMemo(() => (base ? documentOf(base).datasources : undefined), [base]);
  const snapshot = useDatasourceHub(id, null, draft?.datasources, undefined, savedSources);
  const options = useMemo(() => bindingOptions(snapshot), [snapshot]);

  if (!draft || !base) {
    if (query.fetching || !query.data) return <p className="page">Loading…</p>;
    return (
      <section className="page">
        <h1>Dashboard not available</h1>
        <p role="alert">{errorMessage(query.error) ?? 'This dashboard is no longer available to you.'}</p>
      </section>
    );
  }
  if (!base.canEdit)
    return (
      <section className="page">
        <h1>{base.title}</h1>
        <p role="alert">You may view this dashboard but not edit it.</p>
        <a href={`/dashboards/${id}`} onClick={followLink(`/dashboards/${id}`)}>
          Open the dashboard
        </a>
      </section>
    );

  const change = (next: DashboardDocument) => {
    setDraft(next);
    setDirty(true);
    setNotice(null);
  };
  const setPanes = (panes: Pane[]) => change({ ...draft, panes });

  const reloadFromServer = () => {
    const latest = dashboard ?? base;
    setBase(latest);
    setDraft(documentOf(latest));
    setDirty(false);
    setIncoming(null);
    setConflict(null);
    setProblem(null);
    setNotice(`Reloaded revision ${latest.documentRevision}`);
    reload();
  };

  const saveOn = async (revision: number) => {
    setProblem(null);
    const answer = await save({
      id,
      input: { ...documentInput({ ...draft, version: WRITER }), expectedDocumentRevision: revision },
    });
    const saved = answer.data?.updateDashboard;
    if (saved) {
      setBase(saved);
      setDirty(false);
      setConflict(null);
      setIncoming(null);
      setNotice(`Saved revision ${saved.documentRevision}`);
      return;
    }
    if (errorCode(answer.error) === 'CONFLICT') {
      const current = errorExtension(answer.error, 'currentRevision');
      setConflict(typeof current === 'number' ? current : (dashboard?.documentRevision ?? revision));
      setIncoming(null);
    } else setProblem(errorMessage(answer.error) ?? 'The dashboard was not saved');
  };

  const addPane = () => {
    const layout = freePlace(draft.panes, draft.columns, 1, 3);
    const pane: Pane = {
      id: newId(
        'pane',
        draft.panes.map((p) => p.id),
      ),
      title: '',
      layout,
      widgets: [],
    };
    setPanes([...draft.panes, pane]);
    setSelectedPane(pane.id);
    return pane;
  };

  const addWidget = () => {
    let target = draft.panes.find((p) => p.id === selectedPane) ?? draft.panes[0];
    let panes = draft.panes;
    if (!target) {
      target = { id: 'pane1', title: '', layout: freePlace([], draft.columns, 1, 3), widgets: [] };
      panes = [target];
      change({ ...draft, panes });
      setSelectedPane(target.id);
    }
    const widget: Widget = {
      id: newId('w', allWidgetIds({ panes })),
      type: 'text',
      title: '',
      enabled: true,
      settings: {},
    };
    setDialog({ kind: 'widget', paneId: target.id, widget, isNew: true });
  };

  const applyWidget = (widget: Widget, paneId: string) => {
    const panes = draft.panes.map((pane) => {
      const kept = (pane.widgets ?? []).filter((w) => w.id !== widget.id || pane.id === paneId);
      if (pane.id !== paneId) return { ...pane, widgets: kept };
      const exists = kept.some((w) => w.id === widget.id);
      return {
        ...pane,
        widgets: exists ? kept.map((w) => (w.id === widget.id ? widget : w)) : [...kept, widget],
      };
    });
    setPanes(panes);
    setDialog(null);
  };

  const profileIds = new Set([
    ...(credentials.data?.credentialProfiles ?? []).map((p) => p._id),
    ...(brokers.data?.brokerProfiles ?? []).map((p) => p._id),
  ]);

  return (
    <section className="page dashboard-editor">
      <div className="dashboard-view__head">
        <h1>
          Editing {draft.title}
          {dirty ? <span className="dashboard-editor__dirty"> (unsaved changes)</span> : null}
        </h1>
        <div className="toolbar" role="toolbar" aria-label="Editor">
          <button
            type="button"
            className="button button--primary"
            disabled={saving.fetching}
            onClick={() => saveOn(base.documentRevision)}
          >
            Save
          </button>
          <button type="button" className="button" onClick={addPane}>
            Add pane
          </button>
          <button type="button" className="button" onClick={addWidget}>
            Add widget
          </button>
          <button
            type="button"
            className="button"
            onClick={() => setDialog({ kind: 'datasources', startWithNew: true })}
          >
            Add datasource
          </button>
          <button
            type="button"
            className="button"
            onClick={() => setDialog({ kind: 'datasources', startWithNew: false })}
          >
            Datasources
          </button>
          <button type="button" className="button" onClick={() => setDialog({ kind: 'settings' })}>
            Settings
          </button>
          {base.canManageSharing && (
            <button type="button" className="button" onClick={() => setDialog({ kind: 'share' })}>
              Share
            </button>
          )}
          <button type="button" className="button" onClick={() => setDialog({ kind: 'history' })}>
            History
          </button>
          <button type="button" className="button" onClick={() => downloadExport(draft)}>
            Export JSON
          </button>
          <ImportButton
            onDocument={(doc) => {
              change(doc);
              const warnings = missingProfileWarnings(doc, profileIds);
              setNotice(
                warnings.length > 0 ? warnings.join('. ') : 'Imported into the working copy; save to keep it',
              );
            }}
            onProblem={setProblem}
          />
          <button
            type="button"
            className="button"
            onClick={() => {
              if (!dirty || window.confirm('Leave the editor? Your unsaved changes will be lost.'))
                navigate(`/dashboards/${id}`);
            }}
          >
            View
          </button>
        </div>
      </div>
      {incoming && (
        <div className="editor-notice" role="status">
          <p>
            {incoming.who ?? 'Someone else'} saved this dashboard at{' '}
            {new Date(incoming.at).toLocaleTimeString()} (revision {incoming.revision}).
            {dirty ? ' Your unsaved changes are still here.' : ''}
          </p>
          <div className="toolbar">
            <button type="button" className="button" onClick={reloadFromServer}>
              Reload
            </button>
            <button type="button" className="button" onClick={() => setIncoming(null)}>
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
            <button type="button" className="button" onClick={reloadFromServer}>
              Reload
            </button>
            <button
              type="button"
              className="button button--danger"
              disabled={saving.fetching}
              onClick={() => saveOn(conflict)}
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
      {draft.panes.length === 0 ? (
        <p className="dashboard-editor__empty">No panes yet. Add a pane, then widgets into it.</p>
      ) : null}
      <EditorGrid
        document={draft}
        snapshot={snapshot}
        selectedPaneId={selectedPane}
        onSelectPane={setSelectedPane}
        onPanesChange={setPanes}
        onEditWidget={(paneId, widgetId) => {
          const widget = draft.panes.find((p) => p.id === paneId)?.widgets?.find((w) => w.id === widgetId);
          if (widget) setDialog({ kind: 'widget', paneId, widget, isNew: false });
        }}
      />
      {dialog?.kind === 'widget' && (
        <WidgetDialog
          initial={dialog.widget}
          paneId={dialog.paneId}
          paneNames={draft.panes.map((p, i) => ({ id: p.id, name: paneName(p, i) }))}
          bindingOptions={options}
          onSave={applyWidget}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'datasources' && (
        <DatasourcesDialog
          datasources={draft.datasources}
          snapshot={snapshot}
          startWithNew={dialog.startWithNew}
          onChange={(datasources) => change({ ...draft, datasources })}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'settings' && (
        <SettingsDialog
          document={draft}
          onApply={(next) => {
            change(next);
            setDialog(null);
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'share' && <ShareDialog dashboard={base} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'history' && (
        <HistoryPanel
          dashboard={{ ...base, documentRevision: dashboard?.documentRevision ?? base.documentRevision }}
          onClose={() => setDialog(null)}
          onRestored={(restored) => {
            setBase(restored);
            setDraft(documentOf(restored));
            setDirty(false);
            setIncoming(null);
            setNotice(`Restored as revision ${restored.documentRevision}`);
          }}
        />
      )}
    </section>
  );
}
