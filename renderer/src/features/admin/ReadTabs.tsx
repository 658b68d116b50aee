// The read-only admin tabs: audit log, datasource diagnostics, runtime metrics.
import { type FormEvent, useMemo, useState } from 'react';
import { type UseQueryState, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import {
  AdminAuditEventsDocument,
  AdminDatasourceDiagnosticsDocument,
  AdminRuntimeMetricsDocument,
  AdminServiceAccountsDocument,
  AdminShopLinksDocument,
  type AdminShopLinksQuery,
  BrokerProfilesDocument,
  CredentialProfilesDocument,
  DashboardsDocument,
  ListAllUsersDocument,
} from '../../lib/graphql/generated.ts';
import { Problem, TextField } from '../../ui/Field.tsx';

const PAGE = 100;
const MOST = 500;

/**
 * What the audit log's ids stand for, as far as this admin can read them now: a user's email, a
 * dashboard's title, a service account's or profile's name. Deleted ones are not known any more.
 */
function useAuditNames(): (type: string, id: string | null | undefined) => string | undefined {
  // Fresh each time the tab opens: the log names what was made since the lists were last read.
  const fresh = { requestPolicy: 'cache-and-network' } as const;
  const [users] = useQuery({ query: ListAllUsersDocument, ...fresh });
  const [dashboards] = useQuery({ query: DashboardsDocument, ...fresh });
  const [accounts] = useQuery({ query: AdminServiceAccountsDocument, ...fresh });
  const [credentials] = useQuery({ query: CredentialProfilesDocument, ...fresh });
  const [brokers] = useQuery({ query: BrokerProfilesDocument, ...fresh });
  const names = useMemo(() => {
    const known = new Map<string, string>();
    for (const u of users.data?.listAllUsers ?? []) if (u) known.set(`user ${u._id}`, u.email);
    for (const d of dashboards.data?.dashboards ?? []) known.set(`dashboard ${d._id}`, d.title);
    for (const a of accounts.data?.adminServiceAccounts ?? []) known.set(`service_account ${a._id}`, a.name);
    for (const c of credentials.data?.credentialProfiles ?? [])
      known.set(`credential_profile ${c._id}`, c.name);
    for (const b of brokers.data?.brokerProfiles ?? []) known.set(`broker_profile ${b._id}`, b.name);
    return known;
  }, [users.data, dashboards.data, accounts.data, credentials.data, brokers.data]);
  return (type, id) => (id ? names.get(`${type} ${id}`) : undefined);
}

/** A name where one is known, with the id beside it; the id alone otherwise. */
function Named({ name, id }: { name: string | undefined; id: string }) {
  if (name === undefined) return <>{id}</>;
  return (
    <>
      {name} <span className="admin__id">{id}</span>
    </>
  );
}

export function AuditTab() {
  const nameOf = useAuditNames();
  const [filter, setFilter] = useState('');
  const [applied, setApplied] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const [events] = useQuery({
    query: AdminAuditEventsDocument,
    variables: { actionPrefix: applied, limit },
    requestPolicy: 'network-only',
  });
  const list = events.data?.adminAuditEvents ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setApplied(filter.trim());
    setLimit(PAGE);
  };
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      <form className="form__row" onSubmit={submit}>
        <TextField
          label="Action starts with"
          placeholder="e.g. dashboard. or user."
          value={filter}
          onChange={setFilter}
        />
        <button type="submit" className="button">
          Filter
        </button>
      </form>
      <Problem message={errorMessage(events.error)} />
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">Actor</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {list.map((event) => (
            <tr key={event._id}>
              <td>{new Date(event.createdAt).toLocaleString()}</td>
              <td>{event.action}</td>
              <td>
                {event.actorUserId ? (
                  <Named name={nameOf('user', event.actorUserId)} id={event.actorUserId} />
                ) : (
                  '—'
                )}
              </td>
              <td>
                {event.targetType}
                {event.targetId ? (
                  <>
                    {' '}
                    <Named name={nameOf(event.targetType, event.targetId)} id={event.targetId} />
                  </>
                ) : null}
              </td>
              <td className="admin__json">{JSON.stringify(event.metadata)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Showing the newest {list.length} events{applied ? ` whose action starts with “${applied}”` : ''}.{' '}
        {list.length === limit && limit < MOST ? (
          <button type="button" className="button" onClick={() => setLimit(Math.min(MOST, limit + PAGE))}>
            Show more
          </button>
        ) : null}
        {limit >= MOST && list.length === MOST
          ? ' The log shows at most 500 here; narrow the filter to see older ones.'
          : ''}
      </p>
    </section>
  );
}

function Figures({ entries }: { entries: [string, string | number][] }) {
  return (
    <dl className="admin__figures">
      {entries.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : 'never');

/** The fleet publisher and the OPC UA server: how the shop sees this winder (off unless configured). */
function ShopLinks({ result }: { result: UseQueryState<AdminShopLinksQuery> }) {
  const links = result.data?.adminRuntimeMetrics;
  const fleet = links?.fleet;
  const opcua = links?.opcua;
  return (
    <>
      <h3>Shop fleet (MQTT)</h3>
      <Problem message={errorMessage(result.error)} />
      {fleet ? (
        <Figures
          entries={[
            ['Connected', fleet.conflict ? 'no: stopped' : fleet.connected ? 'yes' : 'no'],
            ['Broker', fleet.broker],
            ['State topic', fleet.topic],
            ['Last publish', when(fleet.lastPublishAt)],
            ['Last error', fleet.lastError ?? 'none'],
            [
              'Conflict',
              fleet.conflict
                ? 'another Towpath is online with this workstation id; this one stopped'
                : 'none',
            ],
          ]}
        />
      ) : links ? (
        <p>Off: set FLEET_BROKER_URL to publish this winder’s state to the shop’s broker.</p>
      ) : null}
      <h3>OPC UA server</h3>
      {opcua ? (
        <Figures
          entries={[
            ['Listening', opcua.listening ? `yes, since ${when(opcua.startedAt)}` : 'no'],
            ['Endpoint', opcua.endpoint ?? 'none yet'],
            ['Sessions', opcua.clients],
            ['Last error', opcua.lastError ?? 'none'],
          ]}
        />
      ) : links ? (
        <p>Off: set OPCUA_PORT to serve this winder’s state over OPC UA.</p>
      ) : null}
    </>
  );
}

export function DiagnosticsTab() {
  const [result, refetch] = useQuery({
    query: AdminDatasourceDiagnosticsDocument,
    requestPolicy: 'network-only',
  });
  const [links, refetchLinks] = useQuery({ query: AdminShopLinksDocument, requestPolicy: 'network-only' });
  const d = result.data?.adminDatasourceDiagnostics;
  return (
    <section aria-labelledby="diagnostics-heading">
      <h2 id="diagnostics-heading">Datasource diagnostics</h2>
      <Problem message={errorMessage(result.error)} />
      {d && (
        <>
          <Figures
            entries={[
              ['Dashboards', d.totalDashboards],
              ['Datasources', d.totalDatasources],
              ['Using a credential profile', d.credentialBoundDatasources],
              ['External (http, sse, websocket, mqtt)', d.externalDashboardDatasources],
              ['Invalid or with a missing profile', d.invalidDatasources],
            ]}
          />
          <h3>By type</h3>
          <Figures entries={d.typeCounts.map((t) => [t.type, t.count])} />
        </>
      )}
      <ShopLinks result={links} />
      <button
        type="button"
        className="button"
        onClick={() => {
          refetch({ requestPolicy: 'network-only' });
          refetchLinks({ requestPolicy: 'network-only' });
        }}
      >
        Refresh
      </button>
    </section>
  );
}

export function MetricsTab() {
  const [result, refetch] = useQuery({ query: AdminRuntimeMetricsDocument, requestPolicy: 'network-only' });
  const m = result.data?.adminRuntimeMetrics;
  return (
    <section aria-labelledby="metrics-heading">
      <h2 id="metrics-heading">Runtime metrics</h2>
      <Problem message={errorMessage(result.error)} />
      {m && (
        <>
          <h3>API</h3>
          <Figures
            entries={[
              ['Up for (s)', m.api.uptimeSeconds],
              ['Requests', m.api.requestCount],
              ['Errors', m.api.errorCount],
              ['Average latency (ms)', m.api.avgLatencyMs.toFixed(1)],
              ['p95 latency (ms)', m.api.p95LatencyMs.toFixed(1)],
              ['Max latency (ms)', m.api.maxLatencyMs.toFixed(1)],
              ['Rejected credentials', m.api.authFailureCount],
              ['Datasource tokens minted', m.api.datasourceMintSuccessCount],
              ['Datasource tokens refused', m.api.datasourceMintFailureCount],
              ['Audit write failures', m.api.auditWriteFailureCount],
            ]}
          />
          <h3>Realtime gateway</h3>
          {m.gateway ? (
            <Figures
              entries={[
                ['Up for (s)', m.gateway.uptimeSeconds],
                ['Open connections', m.gateway.realtimeActiveConnections],
                ['Connection attempts', m.gateway.realtimeConnectionAttempts],
                ['Accepted', m.gateway.realtimeConnectionsAccepted],
                ['Rejected', m.gateway.realtimeConnectionsRejected],
                ['Messages in', m.gateway.realtimeMessagesIn],
                ['Messages out', m.gateway.realtimeMessagesOut],
                ['Realtime errors', m.gateway.realtimeErrorCount],
                ['Relay requests', m.gateway.httpRequestCount],
                ['Relay errors', m.gateway.httpErrorCount],
                ['Relay average latency (ms)', m.gateway.httpAvgLatencyMs.toFixed(1)],
              ]}
            />
          ) : (
            <p>No realtime gateway is running or it could not be reached.</p>
          )}
          <p className="form__hint">Collected {new Date(m.collectedAt).toLocaleString()}.</p>
        </>
      )}
      <button type="button" className="button" onClick={() => refetch({ requestPolicy: 'network-only' })}>
        Refresh
      </button>
    </section>
  );
}
