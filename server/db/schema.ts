// Every table of the dashboard spec (§19.2), including those later issues fill, so the migration
// history starts complete. Columns mirror the GraphQL fields in snake_case; timestamps are ISO text,
// booleans 0/1, JSON as text. This file imports nothing of ours so drizzle-kit can load it alone.
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A JSON object as stored in a JSON text column (documents are validated before they are written). */
export type JsonObject = Record<string, unknown>;

/** The eight document fields of a dashboard (`dashboard-document.md` §1), as a revision keeps them. */
export interface DashboardDocument {
  title: string;
  version: string;
  image: string | null;
  datasources: JsonObject[];
  columns: number;
  width: string;
  panes: JsonObject[];
  settings: JsonObject;
}

const timestamps = {
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
};

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: ['viewer', 'editor', 'admin'] }).notNull(),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    sessionVersion: integer('session_version').notNull().default(0),
    registrationDate: text('registration_date').notNull(),
    lastLogin: text('last_login').notNull(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    index('users_role_active_idx').on(t.role, t.active),
    check('users_role_check', sql`${t.role} IN ('viewer', 'editor', 'admin')`),
    check('users_session_version_check', sql`${t.sessionVersion} >= 0`),
  ],
);

export const dashboards = sqliteTable(
  'dashboards',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    version: text('version').notNull(),
    image: text('image'),
    datasources: text('datasources', { mode: 'json' }).$type<JsonObject[]>().notNull().default(sql`'[]'`),
    columns: integer('columns').notNull().default(3),
    width: text('width').notNull().default('md'),
    panes: text('panes', { mode: 'json' }).$type<JsonObject[]>().notNull().default(sql`'[]'`),
    settings: text('settings', { mode: 'json' }).$type<JsonObject>().notNull().default(sql`'{}'`),
    visibility: text('visibility', { enum: ['private', 'link', 'public'] }).notNull(),
    shareToken: text('share_token'),
    shareTokenVersion: integer('share_token_version').notNull().default(1),
    documentRevision: integer('document_revision').notNull().default(1),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('dashboards_share_token_unique').on(t.shareToken),
    index('dashboards_owner_id_idx').on(t.ownerId),
    index('dashboards_visibility_updated_at_idx').on(t.visibility, t.updatedAt),
    check('dashboards_visibility_check', sql`${t.visibility} IN ('private', 'link', 'public')`),
    check('dashboards_share_token_check', sql`(${t.visibility} = 'private') = (${t.shareToken} IS NULL)`),
    check('dashboards_share_token_version_check', sql`${t.shareTokenVersion} >= 1`),
    check('dashboards_document_revision_check', sql`${t.documentRevision} >= 1`),
  ],
);

export const dashboardAcl = sqliteTable(
  'dashboard_acl',
  {
    dashboardId: text('dashboard_id')
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    accessLevel: text('access_level', { enum: ['viewer', 'editor'] }).notNull(),
    grantedBy: text('granted_by').references(() => users.id, { onDelete: 'set null' }),
    grantedAt: text('granted_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.dashboardId, t.userId] }),
    index('dashboard_acl_user_id_idx').on(t.userId),
    check('dashboard_acl_access_level_check', sql`${t.accessLevel} IN ('viewer', 'editor')`),
  ],
);

// One row per accepted document write (creation included), so the current document is the newest
// row; the newest 50 per dashboard are kept.
export const dashboardRevisions = sqliteTable(
  'dashboard_revisions',
  {
    dashboardId: text('dashboard_id')
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    documentRevision: integer('document_revision').notNull(),
    // No foreign key: history outlives its authors (offboarding deletes users).
    authorUserId: text('author_user_id'),
    document: text('document', { mode: 'json' }).$type<DashboardDocument>().notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.dashboardId, t.documentRevision] }),
    check('dashboard_revisions_document_revision_check', sql`${t.documentRevision} >= 1`),
  ],
);

export const credentialProfiles = sqliteTable(
  'credential_profiles',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    type: text('type', { enum: ['none', 'header', 'bearer', 'basic'] }).notNull(),
    description: text('description').notNull().default(''),
    allowPublicUse: integer('allow_public_use', { mode: 'boolean' }).notNull().default(false),
    metadata: text('metadata', { mode: 'json' }).notNull().default(sql`'{}'`),
    secretEnvelope: text('secret_envelope'),
    secretShape: text('secret_shape', { mode: 'json' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('credential_profiles_name_unique').on(sql`${t.name} COLLATE NOCASE`),
    check('credential_profiles_type_check', sql`${t.type} IN ('none', 'header', 'bearer', 'basic')`),
  ],
);

export const brokerProfiles = sqliteTable(
  'broker_profiles',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    protocol: text('protocol', { enum: ['mqtt'] })
      .notNull()
      .default('mqtt'),
    description: text('description').notNull().default(''),
    brokerUrl: text('broker_url').notNull(),
    tls: text('tls', { mode: 'json' }),
    credentialProfileId: text('credential_profile_id').references(() => credentialProfiles.id, {
      onDelete: 'set null',
    }),
    allowPublicUse: integer('allow_public_use', { mode: 'boolean' }).notNull().default(false),
    topicAllowlist: text('topic_allowlist', { mode: 'json' }).notNull().default(sql`'[]'`),
    ...timestamps,
  },
  (t) => [uniqueIndex('broker_profiles_name_unique').on(sql`${t.name} COLLATE NOCASE`)],
);

export const serviceAccounts = sqliteTable(
  'service_accounts',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    scopes: text('scopes', { mode: 'json' }).notNull(),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    lastUsedAt: text('last_used_at'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('service_accounts_name_unique').on(sql`${t.name} COLLATE NOCASE`)],
);

export const serviceAccountTokens = sqliteTable(
  'service_account_tokens',
  {
    id: text('id').primaryKey(),
    serviceAccountId: text('service_account_id')
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: 'cascade' }),
    label: text('label'),
    tokenHash: text('token_hash').notNull(),
    tokenPrefix: text('token_prefix').notNull(),
    scopes: text('scopes', { mode: 'json' }).notNull(),
    expiresAt: text('expires_at'),
    revokedAt: text('revoked_at'),
    lastUsedAt: text('last_used_at'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('service_account_tokens_token_hash_unique').on(t.tokenHash),
    index('service_account_tokens_service_account_id_idx').on(t.serviceAccountId),
  ],
);

export const invites = sqliteTable(
  'invites',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    role: text('role', { enum: ['viewer', 'editor'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: text('expires_at').notNull(),
    revokedAt: text('revoked_at'),
    acceptedAt: text('accepted_at'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('invites_token_hash_unique').on(t.tokenHash),
    index('invites_email_idx').on(t.email),
    check('invites_role_check', sql`${t.role} IN ('viewer', 'editor')`),
  ],
);

export const passwordResetTokens = sqliteTable(
  'password_reset_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    // null = requested by the user themself through requestPasswordReset.
    issuedBy: text('issued_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: text('expires_at').notNull(),
    usedAt: text('used_at'),
    revokedAt: text('revoked_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('password_reset_tokens_token_hash_unique').on(t.tokenHash),
    index('password_reset_tokens_user_id_idx').on(t.userId),
  ],
);

export const policy = sqliteTable('policy', {
  key: text('key').primaryKey(),
  value: text('value', { mode: 'json' }).notNull(),
  updatedAt: text('updated_at').notNull(),
  updatedBy: text('updated_by'),
});

export const auditEvents = sqliteTable(
  'audit_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // No foreign key: the trail outlives the users it names.
    actorUserId: text('actor_user_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    metadata: text('metadata', { mode: 'json' }).notNull().default(sql`'{}'`),
    ...timestamps,
  },
  (t) => [
    index('audit_events_created_at_id_idx').on(sql`${t.createdAt} DESC`, sql`${t.id} DESC`),
    index('audit_events_action_idx').on(t.action),
  ],
);

export const shareTokenRevocationEvents = sqliteTable(
  'share_token_revocation_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // No foreign key: events outlive a deleted dashboard (the gateway still needs them).
    dashboardId: text('dashboard_id').notNull(),
    shareTokenVersion: integer('share_token_version').notNull(),
    reason: text('reason', {
      enum: ['visibility_changed', 'share_token_rotated', 'owner_offboarded', 'dashboard_deleted'],
    }).notNull(),
    revokedAt: text('revoked_at').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    index('share_token_revocation_events_created_at_idx').on(t.createdAt),
    index('share_token_revocation_events_dashboard_id_idx').on(t.dashboardId),
  ],
);

export const securityLimiterState = sqliteTable(
  'security_limiter_state',
  {
    keyHash: text('key_hash').primaryKey(),
    count: integer('count').notNull().default(0),
    windowStartedAt: text('window_started_at').notNull(),
    lockUntil: text('lock_until'),
    // Set once the "blocked"/"rate limited" audit event of the current lock or window is written.
    reported: integer('reported', { mode: 'boolean' }).notNull().default(false),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [index('security_limiter_state_expires_at_idx').on(t.expiresAt)],
);
