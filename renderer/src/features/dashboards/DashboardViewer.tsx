import { useState } from 'react';
import { errorMessage } from '../../lib/graphql/client.ts';
import { followLink, navigate } from '../../lib/location.ts';
import { DashboardGrid } from './DashboardGrid.tsx';
import { documentOf } from './document.ts';
import { downloadExport } from './download.ts';
import { HistoryPanel } from './HistoryPanel.tsx';
import { useDatasourceHub } from './realtime/useHub.ts';
import { ShareDialog } from './ShareDialog.tsx';
import { useLiveDashboard } from './useDashboard.ts';

export function DashboardViewer({ id }: { id: string }) {
  const { dashboard, query, reload } = useLiveDashboard(id);
  const [dialog, setDialog] = useState<'share' | 'history' | null>(null);
  const document = dashboard ? documentOf(dashboard) : null;
  const snapshot = useDatasourceHub(id, null, document?.datasources, reload);

  if (query.fetching && !dashboard) return <p className="page">Loading…</p>;
  if (!dashboard || !document)
    return (
      <section className="page">
        <h1>Dashboard not available</h1>
        <p role="alert">
          {query.error ? errorMessage(query.error) : 'This dashboard is no longer available to you.'}
        </p>
        <p>
          <a href="/dashboards" onClick={followLink('/dashboards')}>
            Back to the dashboards
          </a>
        </p>
      </section>
    );

  return (
    <section className="page dashboard-view">
      <div className="dashboard-view__head">
        <h1>{document.title}</h1>
        <div className="toolbar">
          {dashboard.canEdit && (
            <button
              type="button"
              className="button button--primary"
              onClick={() => navigate(`/dashboards/${id}/edit`)}
            >
              Edit
            </button>
          )}
          {dashboard.canManageSharing && (
            <button type="button" className="button" onClick={() => setDialog('share')}>
              Share
            </button>
          )}
          {dashboard.canEdit && (
            <button type="button" className="button" onClick={() => setDialog('history')}>
              History
            </button>
          )}
          <button type="button" className="button" onClick={() => downloadExport(document)}>
            Export JSON
          </button>
        </div>
      </div>
      <DashboardGrid document={document} snapshot={snapshot} />
      {dialog === 'share' && <ShareDialog dashboard={dashboard} onClose={() => setDialog(null)} />}
      {dialog === 'history' && (
        <HistoryPanel dashboard={dashboard} onClose={() => setDialog(null)} onRestored={() => reload()} />
      )}
    </section>
  );
}
