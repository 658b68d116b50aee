// Credential profiles (dashboard spec §10.1): the rules, transactions and audit. A secret enters
// through create/update, is sealed before it reaches a row, and leaves only through `openSecret`
// (for introspection); views carry its shape, never its values.
import type { AuditLog } from '../auth/audit-log.ts';
import { iso, newEntityId } from '../auth/tokens.ts';
import type { Now } from '../clock.ts';
import type { ChangeBus } from '../dashboards/bus.ts';
import type { CredentialProfileRow } from '../db/repositories/profiles.ts';
import type { Store } from '../db/store.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { ForeignKeyEnvelope, type SecretSealer } from './envelope.ts';

export type CredentialType = 'none' | 'header' | 'bearer' | 'basic';

export const CREDENTIAL_PROFILE_NOT_FOUND = 'Credential profile not found';

const SECRET_KEYS: Record<CredentialType, readonly string[]> = {
  none: [],
  header: ['headerValue'],
  bearer: ['token'],
  basic: ['username', 'password'],
};

// RFC 9110 token characters.
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export interface CredentialProfileInput {
  name?: string | null;
  type?: CredentialType | null;
  description?: string | null;
  allowPublicUse?: boolean | null;
  metadata?: Record<string, unknown> | null;
  secret?: Record<string, unknown> | null;
}

/** What callers may see of a profile. */
export interface CredentialProfileView {
  id: string;
  name: string;
  type: CredentialType;
  description: string;
  allowPublicUse: boolean;
  metadata: Record<string, unknown>;
  secretShape: Record<string, string> | null;
  /** The stored secret was sealed under another key and must be re-entered. */
  secretNeedsReentry: boolean;
  createdAt: string;
  updatedAt: string;
}

const bad = (message: string) => new ServiceError('BAD_USER_INPUT', message);

function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > 100) throw bad('Credential profile name must be 1–100 characters');
  return name;
}

/** Validates a secret for `type`; NONE takes none (absent or `{}`). */
function checkSecret(type: CredentialType, secret: Record<string, unknown> | null | undefined) {
  const label = `Invalid secret for ${type.toUpperCase()} profile`;
  const given = secret ?? {};
  const allowed = SECRET_KEYS[type];
  for (const key of Object.keys(given)) if (!allowed.includes(key)) throw bad(`${label}: unknown key ${key}`);
  for (const key of allowed) {
    const value = given[key];
    if (value === undefined) throw bad(`${label}: ${key} is required`);
    if (typeof value !== 'string' || value.length === 0)
      throw bad(`${label}: ${key} must be a non-empty string`);
  }
  return allowed.length === 0 ? null : (given as Record<string, string>);
}

function checkMetadata(type: CredentialType, metadata: Record<string, unknown>) {
  if (type !== 'header') return;
  const headerName = metadata.headerName;
  if (typeof headerName !== 'string' || !HTTP_TOKEN.test(headerName))
    throw bad('HEADER profiles need metadata.headerName, an HTTP header name');
}

function shapeOf(secret: Record<string, string> | null): Record<string, string> | null {
  if (!secret) return null;
  return Object.fromEntries(Object.keys(secret).map((key) => [key, '***']));
}

export interface CredentialProfileDeps {
  store: Store;
  clock: Now;
  audit: AuditLog;
  /** Told after commit of each update and delete, so live streams using the profile re-check. */
  bus: ChangeBus;
  sealer: SecretSealer;
  logger: Logger;
}

export class CredentialProfileService {
  readonly #deps: CredentialProfileDeps;

  constructor(deps: CredentialProfileDeps) {
    this.#deps = deps;
  }

  view(row: CredentialProfileRow): CredentialProfileView {
    return {
      id: row.id,
      name: row.name,
      type: row.type,
      description: row.description,
      allowPublicUse: row.allowPublicUse,
      metadata: (row.metadata ?? {}) as Record<string, unknown>,
      secretShape: (row.secretShape ?? null) as Record<string, string> | null,
      secretNeedsReentry: row.secretEnvelope !== null && !this.#deps.sealer.sealedHere(row.secretEnvelope),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  list(): CredentialProfileView[] {
    return this.#deps.store.credentialProfiles.list().map((row) => this.view(row));
  }

  create(actorUserId: string, input: CredentialProfileInput & { name: string; type: CredentialType }) {
    const { store, clock, sealer } = this.#deps;
    const name = checkName(input.name);
    const metadata = input.metadata ?? {};
    checkMetadata(input.type, metadata);
    const secret = checkSecret(input.type, input.secret);
    const now = iso(clock());
    const id = newEntityId(clock());
    const row: CredentialProfileRow = {
      id,
      name,
      type: input.type,
      description: input.description ?? '',
      allowPublicUse: input.allowPublicUse ?? false,
      metadata,
      secretEnvelope: secret ? sealer.seal(id, secret) : null,
      secretShape: shapeOf(secret),
      createdAt: now,
      updatedAt: now,
    };
    store.transaction(() => {
      this.#uniqueName(name, null);
      store.credentialProfiles.insert(row);
    });
    this.#record(actorUserId, 'credential_profile.created', row);
    return this.view(row);
  }

  update(actorUserId: string, id: string, input: CredentialProfileInput) {
    const { store, clock, sealer } = this.#deps;
    const name = input.name == null ? undefined : checkName(input.name);
    const row = store.transaction(() => {
      const current = store.credentialProfiles.byId(id);
      if (!current) throw new ServiceError('NOT_FOUND', CREDENTIAL_PROFILE_NOT_FOUND);
      const type = input.type ?? current.type;
      const typeChanged = type !== current.type;
      const metadata = input.metadata ?? (current.metadata as Record<string, unknown>);
      checkMetadata(type, metadata);
      const next: CredentialProfileRow = {
        ...current,
        name: name ?? current.name,
        type,
        description: input.description ?? current.description,
        allowPublicUse: input.allowPublicUse ?? current.allowPublicUse,
        metadata,
      };
      if (type === 'none') {
        checkSecret('none', input.secret);
        next.secretEnvelope = null;
        next.secretShape = null;
      } else if (input.secret != null) {
        const secret = checkSecret(type, input.secret);
        next.secretEnvelope = secret ? sealer.seal(id, secret) : null;
        next.secretShape = shapeOf(secret);
      } else if (typeChanged) {
        throw bad('secret is required when type changes');
      }
      if (name !== undefined) this.#uniqueName(name, id);
      const fields = changedFields(current, next, input.secret != null);
      if (fields.length > 0) next.updatedAt = iso(clock());
      store.credentialProfiles.replace(next);
      return { next, fields };
    });
    this.#record(actorUserId, 'credential_profile.updated', row.next, row.fields);
    this.#deps.bus.publish({ kind: 'profile', profileId: id, profileType: 'credential', change: 'updated' });
    return this.view(row.next);
  }

  /** Brokers that used it lose their credential (FK SET NULL); datasources keep the dangling id. */
  delete(actorUserId: string, id: string) {
    const { store } = this.#deps;
    const { row, brokerIds } = store.transaction(() => {
      const current = store.credentialProfiles.byId(id);
      if (!current) throw new ServiceError('NOT_FOUND', CREDENTIAL_PROFILE_NOT_FOUND);
      // The brokers that used it lose their login with it (FK SET NULL): their streams re-check too.
      const brokers = store.brokerProfiles.list().filter((broker) => broker.credentialProfileId === id);
      store.credentialProfiles.delete(id);
      return { row: current, brokerIds: brokers.map((broker) => broker.id) };
    });
    this.#record(actorUserId, 'credential_profile.deleted', row);
    const { bus } = this.#deps;
    bus.publish({ kind: 'profile', profileId: id, profileType: 'credential', change: 'deleted' });
    for (const brokerId of brokerIds)
      bus.publish({ kind: 'profile', profileId: brokerId, profileType: 'broker', change: 'updated' });
    return this.view(row);
  }

  /**
   * The plaintext secret for applying it to an upstream request, or null without one. A profile
   * sealed under another key is logged and treated as unusable until an admin re-enters its secret.
   */
  openSecret(row: CredentialProfileRow): Record<string, string> | null {
    if (!row.secretEnvelope) return null;
    try {
      return this.#deps.sealer.open(row.id, row.secretEnvelope);
    } catch (error) {
      if (error instanceof ForeignKeyEnvelope) {
        this.#deps.logger.warn(`Credential profile ${row.id} was encrypted with another key`);
        return null;
      }
      this.#deps.logger.error({ profileId: row.id }, 'credential profile secret could not be opened');
      return null;
    }
  }

  #uniqueName(name: string, exceptId: string | null) {
    const other = this.#deps.store.credentialProfiles.byName(name);
    if (other && other.id !== exceptId) throw bad('A credential profile with this name already exists');
  }

  #record(actorUserId: string, action: string, row: CredentialProfileRow, fields?: string[]) {
    this.#deps.audit.record({
      actorUserId,
      action,
      targetType: 'credential_profile',
      targetId: row.id,
      metadata: { name: row.name, type: row.type, ...(fields ? { fields } : {}) },
    });
  }
}

function changedFields(before: CredentialProfileRow, after: CredentialProfileRow, secretGiven: boolean) {
  const fields: string[] = [];
  for (const key of ['name', 'type', 'description', 'allowPublicUse'] as const)
    if (before[key] !== after[key]) fields.push(key);
  if (JSON.stringify(before.metadata) !== JSON.stringify(after.metadata)) fields.push('metadata');
  if (secretGiven || before.secretEnvelope !== after.secretEnvelope) fields.push('secret');
  return fields;
}
