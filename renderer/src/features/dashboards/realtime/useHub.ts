import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { useClient } from 'urql';
import { MintDatasourceSessionTokenDocument } from '../../../lib/graphql/generated.ts';
import { getSessionToken } from '../../../lib/session.ts';
import type { Datasource } from '../document.ts';
import { createGatewaySources } from './gateway-sources.ts';
import { MintError } from './http-source.ts';
import { DatasourceHub, type HubSnapshot } from './hub.ts';
import { setLiveSourceFactory } from './sources.ts';

// Pages that run dashboards stream through the realtime gateway; the hub's own tests plug in fakes.
setLiveSourceFactory(createGatewaySources());

/** Runs a dashboard's datasources while the page shows it; the snapshot re-renders the view. */
export function useDatasourceHub(
  dashboardId: string,
  shareToken: string | null,
  datasources: readonly Datasource[] | undefined,
  onRevoked?: () => void,
  /** The editor's stored datasources: unsaved live ones wait for a save (see `setDatasources`). */
  saved?: readonly Datasource[],
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
          if (token) return token;
          const problem = result.error?.graphQLErrors[0];
          const retry = problem?.extensions?.retryAfterSeconds;
          throw new MintError(
            problem?.message ?? 'The workstation did not answer',
            typeof problem?.extensions?.code === 'string' ? problem.extensions.code : 'NETWORK',
            typeof retry === 'number' ? retry : null,
          );
        },
      }),
    [client, dashboardId, shareToken],
  );
  useEffect(() => () => hub.stop(), [hub]);
  useEffect(() => {
    hub.setRevokedHandler(onRevoked ?? null);
  }, [hub, onRevoked]);
  useEffect(() => {
    hub.setDatasources(datasources ?? [], saved);
  }, [hub, datasources, saved]);
  return useSyncExternalStore(hub.subscribe, hub.getSnapshot);
}
