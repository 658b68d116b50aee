import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { useClient } from 'urql';
import { MintDatasourceSessionTokenDocument } from '../../../lib/graphql/generated.ts';
import { getSessionToken } from '../../../lib/session.ts';
import type { Datasource } from '../document.ts';
import { DatasourceHub, type HubSnapshot } from './hub.ts';

/** Runs a dashboard's datasources while the page shows it; the snapshot re-renders the view. */
export function useDatasourceHub(
  dashboardId: string,
  shareToken: string | null,
  datasources: readonly Datasource[] | undefined,
  onRevoked?: () => void,
): HubSnapshot {
  const client = useClient();
  const hub = useMemo(
    () =>
      new DatasourceHub({
        dashboardId,
        shareToken,
        bearer: getSessionToken,
        now: Date.now,
        async mint(datasourceId) {
          const result = await client
            .mutation(MintDatasourceSessionTokenDocument, { dashboardId, datasourceId, shareToken })
            .toPromise();
          const token = result.data?.mintDatasourceSessionToken;
          if (!token) throw new Error(result.error?.graphQLErrors[0]?.message ?? 'Datasource token denied');
          return token;
        },
      }),
    [client, dashboardId, shareToken],
  );
  useEffect(() => () => hub.stop(), [hub]);
  useEffect(() => {
    hub.setRevokedHandler(onRevoked ?? null);
  }, [hub, onRevoked]);
  useEffect(() => {
    hub.setDatasources(datasources ?? []);
  }, [hub, datasources]);
  return useSyncExternalStore(hub.subscribe, hub.getSnapshot);
}
