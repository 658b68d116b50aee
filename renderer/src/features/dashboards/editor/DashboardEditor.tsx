// /dashboards/:id/edit — a working copy of the document, saved with the revision it was made on.
// The editor subscribes to its dashboard: when someone else saves, it says so at once and offers to
// reload or keep editing; a save that still conflicts offers reload or overwrite (a new save on the
// current revision). Nothing is ever dropped without the person choosing it (`useWorkingCopy.ts`).
import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { errorMessage } from '../../../lib/graphql/client.ts';
import { BrokerProfilesDocument, CredentialProfilesDocument } from '../../../lib/graphql/generated.ts';
import { useMe } from '../../../lib/graphql/me.ts';
import { followLink, navigate } from '../../../lib/location.ts';
import {
  addPane,
  addWidget,
  applyWidget,
  type DashboardDocument,
  documentOf,
  missingProfileWarnings,
  type Pane,
  type Widget,
} from '../document.ts';
import { downloadExport } from '../download.ts';
import { HistoryPanel } from '../HistoryPanel.tsx';
import { useDatasourceHub } from '../realtime/useHub.ts';
import { ShareDialog } from '../ShareDialog.tsx';
import { bindingOptions } from './binding-options.ts';
import { DatasourcesDialog } from './DatasourcesDialog.tsx';
import { EditorGrid, paneName } from './EditorGrid.tsx';
import { EditorNotices } from './EditorNotices.tsx';
import { EditorToolbar } from './EditorToolbar.tsx';
import { SettingsDialog } from './SettingsDialog.tsx';
import { useWorkingCopy } from './useWorkingCopy.ts';
import { WidgetDialog } from './WidgetDialog.tsx';

type Dialogs =
  | { kind: 'widget'; paneId: string; widget: Widget; isNew: boolean }
  | { kind: 'datasources'; startWithNew: boolean }
  | { kind: 'settings' }
  | { kind: 'share' }
  | { kind: 'history' }
  | null;

export function DashboardEditor({ id }: { id: string }) {
  const copy = useWorkingCopy(id);
  const { base, draft, dirty, dashboard, query } = copy;
  const { user } = useMe();
  const [selectedPane, setSelectedPane] = useState<string | null>(null);
  const [dialog, setDialog] = useState<Dialogs>(null);
  const mayReadProfiles = user?.role === 'EDITOR' || user?.role === 'ADMIN';
  const [credentials] = useQuery({ query: CredentialProfilesDocument, pause: !mayReadProfiles });
  const [brokers] = useQuery({ query: BrokerProfilesDocument, pause: !mayReadProfiles });

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

  const change = (next: DashboardDocument) => copy.edit(next);
  const setPanes = (panes: Pane[]) => change({ ...draft, panes });
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
        <EditorToolbar
          saving={copy.saving}
          canManageSharing={base.canManageSharing}
          onSave={() => copy.save(base.documentRevision)}
          onAddPane={() => {
            const added = addPane(draft);
            change(added.document);
            setSelectedPane(added.pane.id);
          }}
          onAddWidget={() => {
            const added = addWidget(draft, selectedPane);
            if (added.document !== draft) {
              change(added.document);
              setSelectedPane(added.paneId);
            }
            setDialog({ kind: 'widget', paneId: added.paneId, widget: added.widget, isNew: true });
          }}
          onOpen={(kind) =>
            setDialog(
              kind === 'new-datasource' || kind === 'datasources'
                ? { kind: 'datasources', startWithNew: kind === 'new-datasource' }
                : { kind },
            )
          }
          onExport={() => downloadExport(draft)}
          onImport={(doc) => {
            const warnings = missingProfileWarnings(doc, profileIds);
            copy.edit(
              doc,
              warnings.length > 0 ? warnings.join('. ') : 'Imported into the working copy; save to keep it',
            );
          }}
          onProblem={copy.setProblem}
          onView={() => {
            if (!dirty || window.confirm('Leave the editor? Your unsaved changes will be lost.'))
              navigate(`/dashboards/${id}`);
          }}
        />
      </div>
      <EditorNotices
        incoming={copy.incoming}
        conflict={copy.conflict}
        dirty={dirty}
        problem={copy.problem}
        gone={copy.gone}
        notice={copy.notice}
        saving={copy.saving}
        onReload={copy.reload}
        onKeepEditing={copy.keepEditing}
        onOverwrite={(revision) => copy.save(revision)}
      />
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
          onSave={(widget, paneId) => {
            change(applyWidget(draft, widget, paneId));
            setDialog(null);
          }}
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
          onRestored={copy.restore}
        />
      )}
    </section>
  );
}
