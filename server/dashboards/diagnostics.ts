// Datasource diagnostics for admins (spec §15): a count over every stored dashboard's datasources,
// by type, by what they need from outside, and how many no longer validate or name a missing profile.
import type { JsonObject } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { datasourceDetail } from './document.ts';

export interface DatasourceDiagnostics {
  totalDashboards: number;
  totalDatasources: number;
  credentialBoundDatasources: number;
  externalDashboardDatasources: number;
  invalidDatasources: number;
  typeCounts: { type: string; count: number }[];
}

export function datasourceDiagnostics(store: Store): DatasourceDiagnostics {
  const { dashboards } = store;
  const profiles = dashboards.profileIds();
  const counts = new Map<string, number>();
  let totalDashboards = 0;
  let totalDatasources = 0;
  let credentialBoundDatasources = 0;
  let externalDashboardDatasources = 0;
  let invalidDatasources = 0;
  for (const row of dashboards.listAll()) {
    totalDashboards += 1;
    for (const entry of row.datasources) {
      totalDatasources += 1;
      const type = typeof entry.type === 'string' ? entry.type : 'unknown';
      counts.set(type, (counts.get(type) ?? 0) + 1);
      const settings = (entry.settings ?? {}) as JsonObject;
      const credential = settings.credentialProfileId;
      if (typeof credential === 'string' && credential !== '') credentialBoundDatasources += 1;
      if (['http', 'sse', 'websocket', 'mqtt'].includes(type)) externalDashboardDatasources += 1;
      const broker = settings.brokerProfileId;
      const invalid =
        datasourceDetail(entry) !== null ||
        (typeof credential === 'string' && credential !== '' && !profiles.credential.has(credential)) ||
        (type === 'mqtt' && typeof broker === 'string' && !profiles.broker.has(broker));
      if (invalid) invalidDatasources += 1;
    }
  }
  const typeCounts = [...counts]
    .map(([type, count]) => ({ type, count }))
    .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  return {
    totalDashboards,
    totalDatasources,
    credentialBoundDatasources,
    externalDashboardDatasources,
    invalidDatasources,
    typeCounts,
  };
}
