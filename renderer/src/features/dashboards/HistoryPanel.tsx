import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import { DashboardRevisionsDocument, RestoreDashboardRevisionDocument } from '../../lib/graphql/generated.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { Problem } from '../../ui/Field.tsx';
import { DashboardGrid } from './DashboardGrid.tsx';
import { documentOf } from './document.ts';
import { useDatasourceHub } from './realtime/useHub.ts';
import type { DashboardRecord } from './useDashboard.ts';

function Preview({ dashboardId, document }: { dashboardId: string; document: Record<string, unknown> }) {
  const doc = documentOf(document);
  const snapshot = useDatasourceHub(`${dashboardId}-preview`, null, doc.datasources);
  return (
    <section className="history__preview" aria-label="Revision preview">
      <h3>{doc.title}</h3>
      <DashboardGrid document={doc} snapshot={snapshot} />
    </section>
  );
}

/** The kept revisions, newest first: preview one, restore it (a new revision on top of the current). */
export function HistoryPanel({
  dashboard,
  onClose,
  onRestored,
}: {
  dashboard: DashboardRecord;
  onClose: () => void;
  onRestored: (restored: DashboardRecord) => void;
}) {
  const [revisions] = useQuery({
    query: DashboardRevisionsDocument,
    variables: { id: dashboard._id },
    requestPolicy: 'network-only',
  });
  const [restoring, restore] = useMutation(RestoreDashboardRevisionDocument);
  const [previewed, setPreviewed] = useState<number | null>(null);
  const list = revisions.data?.dashboardRevisions ?? [];
  const shown = list.find((r) => r.documentRevision === previewed);
  return (
    <Dialog title="History" onClose={onClose}>
      <Problem message={errorMessage(revisions.error)} />
      <ol className="history__list">
        {list.map((revision) => (
          <li key={revision.documentRevision}>
            <span>
              Revision {revision.documentRevision}: “{revision.title}” ·{' '}
              {new Date(revision.createdAt).toLocaleString()}
              {revision.documentRevision === dashboard.documentRevision ? ' (current)' : ''}
            </span>
            <span className="toolbar">
              <button
                type="button"
                className="button"
                onClick={() => setPreviewed(revision.documentRevision)}
              >
                Preview revision {revision.documentRevision}
              </button>
              {revision.documentRevision !== dashboard.documentRevision && (
                <button
                  type="button"
                  className="button"
                  disabled={restoring.fetching}
                  onClick={async () => {
                    const answer = await restore({
                      id: dashboard._id,
                      documentRevision: revision.documentRevision,
                      expectedDocumentRevision: dashboard.documentRevision,
                    });
                    if (answer.data) {
                      onRestored(answer.data.restoreDashboardRevision);
                      onClose();
                    }
                  }}
                >
                  Restore revision {revision.documentRevision}
                </button>
              )}
            </span>
          </li>
        ))}
      </ol>
      <Problem message={errorMessage(restoring.error)} />
      {shown && <Preview dashboardId={dashboard._id} document={shown.document} />}
    </Dialog>
  );
}
