import { useCallback, useEffect, useState } from 'react';
import { useQuery, useSubscription } from 'urql';
import {
  DashboardChangedDocument,
  type DashboardFieldsFragment,
  DashboardDocument as DashboardQuery,
} from '../../lib/graphql/generated.ts';

export type DashboardRecord = DashboardFieldsFragment;

/**
 * A dashboard as the signed-in caller may read it, kept current by the subscription: every change
 * someone makes arrives projected for this caller; `null` means it was deleted or became unreadable.
 */
export function useLiveDashboard(id: string) {
  const [query, reexecute] = useQuery({
    query: DashboardQuery,
    variables: { id },
    requestPolicy: 'network-only',
  });
  const [pushed, setPushed] = useState<{ dashboard: DashboardRecord | null } | null>(null);
  useSubscription({ query: DashboardChangedDocument, variables: { id } }, (_previous, data) => {
    setPushed({ dashboard: data.dashboard ?? null });
    return data;
  });
  // A fresh read supersedes what was pushed before it.
  useEffect(() => {
    if (query.data) setPushed(null);
  }, [query.data]);
  const reload = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  const dashboard = pushed ? pushed.dashboard : (query.data?.dashboard ?? null);
  return { dashboard, query, pushed: pushed !== null, reload };
}
