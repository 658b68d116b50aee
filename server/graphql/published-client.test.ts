// A client written from the dashboard service's interface description alone, against a real
// workstation over HTTP: every document it sends is first checked against the published SDL, so it
// cannot lean on anything of ours. It does what such a client does on its first day: a dashboard
// from creation to deletion, credential and broker profiles, a service account and its tokens, the
// audit trail and the runtime metrics.
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphqlResponse, gql } from '../testing/graphql.ts';
import { ADMIN_EMAIL, type Fixture, PASSWORD, signIn, startFixture } from '../testing/graphql-fixture.ts';
import { publishedSchema } from './published-contract.ts';

const described = publishedSchema();
const HOUR = 3_600_000;

let f: Fixture;
let admin: string;
let editor: string;
let editorId: string;
/** The dashboard the first test takes from creation to deletion. */
let dashboardId: string;

/** Sends `query` as `token`; a document the description does not validate never leaves. */
async function send(query: string, variables: Record<string, unknown> = {}, token?: string) {
  expect(validate(described, parse(query)).map((error) => error.message)).toEqual([]);
  return gql(f.url, query, { token, variables });
}

/** The root field's answer; any error fails with the whole body. */
async function answer<T>(
  field: string,
  query: string,
  variables: Record<string, unknown> = {},
  token = admin,
): Promise<T> {
  const response = await send(query, variables, token);
  if (response.errors || response.data?.[field] === undefined) throw new Error(response.raw);
  return response.data[field] as T;
}

const refusal = (response: GraphqlResponse) => {
  const first = response.errors?.[0];
  return first && { code: first.extensions?.code, message: first.message };
};

beforeAll(async () => {
  // The real service-account check: the tokens issued below are used as a machine client would.
  // Sessions outlive the hours the clock is moved forward between issuing and rotating.
  f = await startFixture({ JWT_TIME_EXPIRATION: '30d' }, { dashboardApi: { serviceAccounts: undefined } });
  admin = await signIn(f.url, ADMIN_EMAIL);
  const made = await answer<{ _id: string }>(
    'adminCreateUser',
    'mutation($email: String!, $password: String!, $role: UserRole!) { adminCreateUser(email: $email, password: $password, role: $role) { _id } }',
    { email: 'line.lead@towpath.test', password: PASSWORD, role: 'EDITOR' },
  );
  editorId = made._id;
  editor = await signIn(f.url, 'line.lead@towpath.test');
});

afterAll(() => f?.ws.dispose());

const DASHBOARD = `_id title version visibility shareToken shareTokenVersion image datasources columns width
  panes settings user acl { userId accessLevel } isOwner canEdit canManageSharing createdAt updatedAt documentRevision`;

describe('a client of the published contract', () => {
  it('creates, updates, shares, transfers and deletes a dashboard', async () => {
    type Dashboard = Record<string, unknown> & { _id: string; documentRevision: number; shareToken: string };
    const created = await answer<Dashboard>(
      'createDashboard',
      `mutation($dashboard: CreateDashboardInput) { createDashboard(dashboard: $dashboard) { ${DASHBOARD} } }`,
      {
        dashboard: {
          title: 'Winder 2',
          version: 'client 1.0',
          columns: 2,
          datasources: [{ id: 'clock', title: 'Clock', type: 'clock' }],
          panes: [{ id: 'main', title: 'Main', layout: { x: 0, y: 0, w: 2, h: 2 } }],
        },
      },
    );
    expect(created).toMatchObject({
      title: 'Winder 2',
      visibility: 'PRIVATE',
      user: f.ids.admin,
      isOwner: true,
      documentRevision: 1,
    });
    const id = created._id;
    dashboardId = id;
    const missing = await send('mutation { createDashboard { _id } }', {}, admin);
    expect(refusal(missing)).toEqual({ code: 'BAD_USER_INPUT', message: 'dashboard is required' });

    const updated = await answer<Dashboard>(
      'updateDashboard',
      `mutation($_id: ID!, $dashboard: UpdateDashboardInput) { updateDashboard(_id: $_id, dashboard: $dashboard) { ${DASHBOARD} } }`,
      { _id: id, dashboard: { title: 'Winder 2, night shift', expectedDocumentRevision: 1 } },
    );
    expect(updated).toMatchObject({ title: 'Winder 2, night shift', documentRevision: 2 });

    // Shared: a person by email, then a link anyone may open.
    const shared = await answer<Dashboard>(
      'upsertDashboardAccess',
      `mutation($_id: ID!, $email: String!, $accessLevel: DashboardAccessLevel!) {
        upsertDashboardAccess(_id: $_id, email: $email, accessLevel: $accessLevel) { ${DASHBOARD} } }`,
      { _id: id, email: 'Line.Lead@towpath.test', accessLevel: 'EDITOR' },
    );
    expect(shared.acl).toEqual([{ userId: editorId, accessLevel: 'EDITOR' }]);
    const linked = await answer<Dashboard>(
      'setDashboardVisibility',
      `mutation($_id: ID!, $visibility: DashboardVisibility!) { setDashboardVisibility(_id: $_id, visibility: $visibility) { ${DASHBOARD} } }`,
      { _id: id, visibility: 'LINK' },
    );
    const rotated = await answer<Dashboard>(
      'rotateDashboardShareToken',
      `mutation($_id: ID!) { rotateDashboardShareToken(_id: $_id) { ${DASHBOARD} } }`,
      { _id: id },
    );
    expect(rotated.shareToken).not.toBe(linked.shareToken);
    const byLink = await answer<Dashboard>(
      'dashboardByShareToken',
      `query($shareToken: String!) { dashboardByShareToken(shareToken: $shareToken) { ${DASHBOARD} } }`,
      { shareToken: rotated.shareToken },
      '',
    );
    expect(byLink).toMatchObject({ _id: id, title: 'Winder 2, night shift', user: null, isOwner: false });
    const people = await answer<unknown[]>(
      'dashboardCollaborators',
      'query($_id: ID!) { dashboardCollaborators(_id: $_id) { userId email accessLevel isOwner } }',
      { _id: id },
    );
    expect(people).toEqual([
      { userId: f.ids.admin, email: ADMIN_EMAIL, accessLevel: 'EDITOR', isOwner: true },
      { userId: editorId, email: 'line.lead@towpath.test', accessLevel: 'EDITOR', isOwner: false },
    ]);

    const transferred = await answer<Dashboard>(
      'transferDashboardOwnership',
      `mutation($_id: ID!, $newOwnerUserId: ID!) { transferDashboardOwnership(_id: $_id, newOwnerUserId: $newOwnerUserId) { ${DASHBOARD} } }`,
      { _id: id, newOwnerUserId: editorId },
    );
    expect(transferred).toMatchObject({ user: editorId, isOwner: false });
    expect(transferred.acl).toEqual([{ userId: f.ids.admin, accessLevel: 'EDITOR' }]);
    const listed = await answer<Dashboard[]>('dashboards', `{ dashboards { ${DASHBOARD} } }`, {}, editor);
    expect(listed.find((d) => d._id === id)).toMatchObject({ isOwner: true, user: editorId });

    const deleted = await answer<Dashboard>(
      'deleteDashboard',
      `mutation($_id: ID!) { deleteDashboard(_id: $_id) { ${DASHBOARD} } }`,
      { _id: id },
      editor,
    );
    expect(deleted._id).toBe(id);
    const gone = await send('query($_id: ID!) { dashboard(_id: $_id) { _id } }', { _id: id }, editor);
    expect([gone.data?.dashboard, refusal(gone)]).toEqual([
      null,
      { code: 'NOT_FOUND', message: 'Dashboard not found' },
    ]);
  });

  it('manages credential and broker profiles', async () => {
    const CREDENTIAL = '_id name description type allowPublicUse metadata secretShape createdAt updatedAt';
    const BROKER =
      '_id name description protocol brokerUrl tls credentialProfileId allowPublicUse topicAllowlist createdAt updatedAt';
    const credential = await answer<{ _id: string }>(
      'adminCreateCredentialProfile',
      `mutation($input: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $input) { ${CREDENTIAL} } }`,
      {
        input: {
          name: 'Hall broker login',
          type: 'BASIC',
          secret: { username: 'winder', password: 'broker-secret-1' },
        },
      },
    );
    expect(credential).toMatchObject({
      type: 'BASIC',
      allowPublicUse: false,
      secretShape: { username: '***', password: '***' },
    });
    const credentialUpdated = await answer<Record<string, unknown>>(
      'adminUpdateCredentialProfile',
      `mutation($_id: ID!, $input: CredentialProfileUpdateInput!) { adminUpdateCredentialProfile(_id: $_id, input: $input) { ${CREDENTIAL} } }`,
      { _id: credential._id, input: { description: 'Mosquitto in hall 2', allowPublicUse: true } },
    );
    expect(credentialUpdated).toMatchObject({ description: 'Mosquitto in hall 2', allowPublicUse: true });

    const broker = await answer<{ _id: string }>(
      'adminCreateBrokerProfile',
      `mutation($input: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $input) { ${BROKER} } }`,
      {
        input: {
          name: 'Hall 2',
          protocol: 'MQTT',
          brokerUrl: 'mqtt://hall2.towpath.test:1883',
          credentialProfileId: credential._id,
          topicAllowlist: ['winders/#'],
        },
      },
    );
    expect(broker).toMatchObject({
      protocol: 'MQTT',
      credentialProfileId: credential._id,
      topicAllowlist: ['winders/#'],
    });
    const brokerUpdated = await answer<Record<string, unknown>>(
      'adminUpdateBrokerProfile',
      `mutation($_id: ID!, $input: BrokerProfileUpdateInput!) { adminUpdateBrokerProfile(_id: $_id, input: $input) { ${BROKER} } }`,
      { _id: broker._id, input: { topicAllowlist: ['winders/+/temp'], tls: { servername: 'hall2' } } },
    );
    expect(brokerUpdated).toMatchObject({ topicAllowlist: ['winders/+/temp'], tls: { servername: 'hall2' } });
    const brokers = await answer<{ _id: string }[]>(
      'brokerProfiles',
      `query($protocol: BrokerProfileProtocol) { brokerProfiles(protocol: $protocol) { ${BROKER} } }`,
      { protocol: 'MQTT' },
      editor,
    );
    expect(brokers.map((b) => b._id)).toEqual([broker._id]);
    const credentials = await answer<{ _id: string }[]>(
      'credentialProfiles',
      `{ credentialProfiles { ${CREDENTIAL} } }`,
      {},
      editor,
    );
    expect(credentials.map((c) => c._id)).toEqual([credential._id]);

    await answer(
      'adminDeleteBrokerProfile',
      'mutation($_id: ID!) { adminDeleteBrokerProfile(_id: $_id) { _id } }',
      {
        _id: broker._id,
      },
    );
    await answer(
      'adminDeleteCredentialProfile',
      'mutation($_id: ID!) { adminDeleteCredentialProfile(_id: $_id) { _id } }',
      { _id: credential._id },
    );
    expect(await answer('credentialProfiles', '{ credentialProfiles { _id } }')).toEqual([]);
    expect(await answer('brokerProfiles', '{ brokerProfiles { _id } }')).toEqual([]);
  });

  it('creates a service account, with and without scopes, and issues, rotates and revokes its tokens', async () => {
    const ACCOUNT = '_id name description active scopes tokenCount createdAt updatedAt lastUsedAt';
    const RECORD =
      '_id serviceAccountId label scopes tokenPreview expiresAt revokedAt createdAt updatedAt lastUsedAt';
    const CREATE = `mutation($input: ServiceAccountInput!) { adminCreateServiceAccount(input: $input) { ${ACCOUNT} } }`;
    for (const input of [{ name: 'Wallboard' }, { name: 'Wallboard', scopes: [] }])
      expect(refusal(await send(CREATE, { input }, admin))).toEqual({
        code: 'BAD_USER_INPUT',
        message: 'At least one scope is required',
      });
    const account = await answer<{ _id: string }>('adminCreateServiceAccount', CREATE, {
      input: { name: 'Wallboard', scopes: ['OPS_READ', 'DATASOURCE_DIAGNOSTICS_READ'] },
    });
    expect(account).toMatchObject({ description: '', active: true, tokenCount: 0 });
    const renamed = await answer<Record<string, unknown>>(
      'adminUpdateServiceAccount',
      `mutation($_id: ID!, $input: UpdateServiceAccountInput!) { adminUpdateServiceAccount(_id: $_id, input: $input) { ${ACCOUNT} } }`,
      { _id: account._id, input: { description: 'The hall display' } },
    );
    expect(renamed).toMatchObject({ description: 'The hall display' });

    type Issued = { token: string; tokenRecord: Record<string, unknown> & { _id: string } };
    const issued = await answer<Issued>(
      'adminIssueServiceAccountToken',
      `mutation($serviceAccountId: ID!, $label: String, $scopes: [ServiceAccountScope!], $expiresInHours: Int) {
        adminIssueServiceAccountToken(serviceAccountId: $serviceAccountId, label: $label, scopes: $scopes, expiresInHours: $expiresInHours) {
          token tokenRecord { ${RECORD} } } }`,
      { serviceAccountId: account._id, label: 'hall display', scopes: ['OPS_READ'], expiresInHours: 24 },
    );
    expect(issued.tokenRecord).toMatchObject({
      serviceAccountId: account._id,
      label: 'hall display',
      scopes: ['OPS_READ'],
      expiresAt: new Date(f.clock() + 24 * HOUR).toISOString(),
      revokedAt: null,
    });
    expect(issued.tokenRecord.updatedAt).toBe(issued.tokenRecord.createdAt);
    // The token does what its scopes say, and no more.
    const metricsAs = async (token: string) =>
      refusal(await send('{ adminRuntimeMetrics { collectedAt } }', {}, token)) ?? 'ok';
    expect(await metricsAs(issued.token)).toBe('ok');
    expect(
      refusal(await send('{ adminDatasourceDiagnostics { totalDashboards } }', {}, issued.token)),
    ).toEqual({ code: 'FORBIDDEN', message: 'Service account lacks scope DATASOURCE_DIAGNOSTICS_READ' });

    f.clock.advance(HOUR);
    const rotated = await answer<Issued>(
      'adminRotateServiceAccountToken',
      `mutation($_id: ID!, $expiresInHours: Int) { adminRotateServiceAccountToken(_id: $_id, expiresInHours: $expiresInHours) {
        token tokenRecord { ${RECORD} } } }`,
      { _id: issued.tokenRecord._id, expiresInHours: 48 },
    );
    expect(rotated.tokenRecord).toMatchObject({
      label: 'hall display',
      scopes: ['OPS_READ'],
      expiresAt: new Date(f.clock() + 48 * HOUR).toISOString(),
    });
    expect(await metricsAs(issued.token)).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await metricsAs(rotated.token)).toBe('ok');

    f.clock.advance(HOUR);
    const revoke = `mutation($_id: ID!) { adminRevokeServiceAccountToken(_id: $_id) }`;
    expect(await answer('adminRevokeServiceAccountToken', revoke, { _id: rotated.tokenRecord._id })).toBe(
      true,
    );
    expect(await answer('adminRevokeServiceAccountToken', revoke, { _id: rotated.tokenRecord._id })).toBe(
      false,
    );
    expect(await metricsAs(rotated.token)).toMatchObject({ code: 'UNAUTHENTICATED' });

    const records = await answer<Record<string, unknown>[]>(
      'adminServiceAccountTokens',
      `query($serviceAccountId: ID!) { adminServiceAccountTokens(serviceAccountId: $serviceAccountId) { ${RECORD} } }`,
      { serviceAccountId: account._id },
    );
    const revokedAt = new Date(f.clock()).toISOString();
    expect(records.map((r) => [r._id, r.revokedAt, r.updatedAt])).toEqual([
      [rotated.tokenRecord._id, revokedAt, revokedAt],
      [
        issued.tokenRecord._id,
        new Date(f.clock() - HOUR).toISOString(),
        new Date(f.clock() - HOUR).toISOString(),
      ],
    ]);
    const accounts = await answer<{ _id: string; tokenCount: number }[]>(
      'adminServiceAccounts',
      `{ adminServiceAccounts { ${ACCOUNT} } }`,
    );
    expect(accounts.find((a) => a._id === account._id)?.tokenCount).toBe(0);
    const removed = await answer<{ tokenCount: number }>(
      'adminDeleteServiceAccount',
      `mutation($_id: ID!) { adminDeleteServiceAccount(_id: $_id) { ${ACCOUNT} } }`,
      { _id: account._id },
    );
    expect(removed.tokenCount).toBe(0);
  });

  it('reads the audit trail and the runtime metrics', async () => {
    const events = await answer<Record<string, unknown>[]>(
      'adminAuditEvents',
      `query($limit: Int, $actionPrefix: String) { adminAuditEvents(limit: $limit, actionPrefix: $actionPrefix) {
        _id actorUserId action targetType targetId metadata createdAt updatedAt } }`,
      { limit: 500, actionPrefix: 'dashboard.' },
    );
    // Newest first, one record per change the first test made (the first admin's Winder dashboard
    // has its own).
    const ours = events.filter((e) => e.targetId === dashboardId);
    expect(ours.map((e) => e.action)).toEqual([
      'dashboard.deleted',
      'dashboard.ownership.transferred',
      'dashboard.share_token.rotated',
      'dashboard.visibility.updated',
      'dashboard.acl.upserted',
      'dashboard.updated',
      'dashboard.created',
    ]);
    for (const event of events) expect(event.updatedAt).toBe(event.createdAt);
    expect(ours[1]).toMatchObject({
      actorUserId: f.ids.admin,
      targetType: 'dashboard',
      metadata: { fromUserId: f.ids.admin, toUserId: editorId },
    });
    const tokens = await answer<{ action: string }[]>(
      'adminAuditEvents',
      'query($actionPrefix: String) { adminAuditEvents(actionPrefix: $actionPrefix) { action } }',
      { actionPrefix: 'service_account_token.' },
    );
    expect(tokens.map((e) => e.action)).toEqual([
      'service_account_token.revoked',
      'service_account_token.rotated',
      'service_account_token.issued',
    ]);

    const metrics = await answer<{
      collectedAt: string;
      api: Record<string, number | string>;
      gateway: Record<string, number | string> | null;
    }>(
      'adminRuntimeMetrics',
      `{ adminRuntimeMetrics { collectedAt
        api { startedAt collectedAt uptimeSeconds requestCount errorCount avgLatencyMs p95LatencyMs maxLatencyMs
          authFailureCount datasourceMintSuccessCount datasourceMintFailureCount auditWriteFailureCount }
        gateway { startedAt collectedAt uptimeSeconds httpRequestCount httpErrorCount httpAvgLatencyMs
          realtimeConnectionAttempts realtimeConnectionsAccepted realtimeConnectionsRejected realtimeActiveConnections
          realtimeMessagesIn realtimeMessagesOut realtimeErrorCount } } }`,
    );
    expect(metrics.collectedAt).toBe(new Date(f.clock()).toISOString());
    // This client's own calls: dozens of requests, its deliberate refusals among the errors, and the
    // old and revoked tokens among the rejected credentials.
    expect(metrics.api.requestCount).toBeGreaterThan(40);
    expect(metrics.api.errorCount).toBeGreaterThanOrEqual(6);
    expect(metrics.api.authFailureCount).toBeGreaterThanOrEqual(2);
    expect(metrics.gateway).toMatchObject({ realtimeActiveConnections: 0 });
  });
});
