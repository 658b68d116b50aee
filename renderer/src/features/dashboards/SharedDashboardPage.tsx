// /s/:shareToken — a dashboard opened by its link, with or without an account. Link and public
// viewers have no subscription: the page re-reads the dashboard every 15 s (the issue asks for at
// least every 30 s) and whenever a datasource stream is revoked, and says so once the link stops working.
import { useCallback, useEffect } from 'react';
import { useQuery } from 'urql';
import { DashboardByShareTokenDocument } from '../../lib/graphql/generated.ts';
import { pathSegment, usePathname } from '../../lib/location.ts';
import { DashboardGrid } from './DashboardGrid.tsx';
import { documentOf } from './document.ts';
import { useDatasourceHub } from './realtime/useHub.ts';
import './dashboards.css';

export const SHARED_REREAD_MS = 15_000;

export default function SharedDashboardPage() {
  const [pathname] = usePathname();
  const shareToken = pathSegment(pathname, 1);
  const [query, reexecute] = useQuery({
    query: DashboardByShareTokenDocument,
    variables: { shareToken },
    requestPolicy: 'network-only',
    pause: shareToken === '',
  });
  const reread = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  useEffect(() => {
    const timer = setInterval(reread, SHARED_REREAD_MS);
    return () => clearInterval(timer);
  }, [reread]);
  const dashboard = query.data?.dashboardByShareToken ?? null;
  // Only a definite answer ends the view: a failed request (the core restarting) keeps the last one.
  const gone = shareToken === '' || (query.data !== undefined && dashboard === null);
  const document = dashboard && !gone ? documentOf(dashboard) : null;
  const snapshot = useDatasourceHub(dashboard?._id ?? 'none', shareToken, document?.datasources, reread);

  if (gone)
    return (
      <section className="page">
        <h1>Shared dashboard</h1>
        <p role="alert">This dashboard is no longer available</p>
      </section>
    );
  if (!document) return <p className="page">Loading…</p>;
  return (
    <section className="page dashboard-view dashboard-view--shared">
      <h1>{document.title}</h1>
      <DashboardGrid document={document} snapshot={snapshot} />
    </section>
  );
}
