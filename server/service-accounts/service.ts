// Service accounts and their tokens (dashboard spec §12): the rules, transactions and audit. A token
// is `fsa_<tokenRecordId>.<secret>`; the secret leaves this module once, in the answer to issue or
// rotate, and is kept only as `H("sa-token", secret)` beside its first 8 characters.
import { randomBytes } from 'node:crypto';
import type { AuditLog } from '../auth/audit-log.ts';
import { constantTimeEqual, iso, newEntityId, type TokenHasher } from '../auth/tokens.ts';
import type { Now } from '../clock.ts';
import type { ChangeBus } from '../dashboards/bus.ts';
import type { ServiceAccountRow, ServiceAccountTokenRow } from '../db/repositories/service-accounts.ts';
import type { Store } from '../db/store.ts';
import { ServiceError } from '../errors.ts';

/** Stored scope names (§1). */
export const SCOPES = ['datasource:mint', 'datasource:diagnostics:read', 'ops:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const SERVICE_ACCOUNT_NOT_FOUND = 'Service account not found';
export const TOKEN_NOT_FOUND = 'Service account token not found';

const PREFIX_LENGTH = 8;
const MAX_HOURS = 8760;
const MAX_DESCRIPTION = 1000;
const MAX_LABEL = 100;
/** `lastUsedAt` is written at most this often per token and account (§12 allows skipping). */
const LAST_USED_GRANULARITY_MS = 60_000;

export interface ServiceAccountInput {
  name?: string | null;
  description?: string | null;
  scopes?: Scope[] | null;
  active?: boolean | null;
}

export interface TokenInput {
  label?: string | null;
  scopes?: Scope[] | null;
  expiresInHours?: number | null;
}

export interface ServiceAccountView extends Omit<ServiceAccountRow, 'scopes' | 'createdBy'> {
  scopes: Scope[];
  tokenCount: number;
}

export interface ServiceAccountTokenView {
  id: string;
  serviceAccountId: string;
  label: string | null;
  scopes: Scope[];
  tokenPreview: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  /** A token record changes only when it is revoked (use is not a change): revokedAt, else createdAt. */
  updatedAt: string;
}

export interface IssuedToken {
  /** The full token: shown this once. */
  token: string;
  record: ServiceAccountTokenView;
}

export interface ServiceAccountDeps {
  store: Store;
  clock: Now;
  audit: AuditLog;
  tokens: TokenHasher;
  /** Told after commit of each account update and delete, so the gateway re-checks `sa:` streams. */
  bus: ChangeBus;
}

const bad = (message: string) => new ServiceError('BAD_USER_INPUT', message);

function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length < 3 || name.length > 100) throw bad('Service account name must be 3–100 characters');
  return name;
}

function checkScopes(scopes: readonly string[]): Scope[] {
  const unique = [...new Set(scopes)];
  if (unique.length === 0) throw bad('At least one scope is required');
  return unique as Scope[];
}

function checkDescription(description: string): string {
  if (description.length > MAX_DESCRIPTION)
    throw bad(`Service account description must be at most ${MAX_DESCRIPTION} characters`);
  return description;
}

function checkLabel(label: string | null | undefined): string | null {
  const trimmed = label?.trim() ?? '';
  if (trimmed.length > MAX_LABEL) throw bad(`Token label must be at most ${MAX_LABEL} characters`);
  return trimmed === '' ? null : trimmed;
}

const clampHours = (hours: number) => Math.min(MAX_HOURS, Math.max(1, Math.trunc(hours)));

const live = (token: ServiceAccountTokenRow, now: number) =>
  token.revokedAt === null && (token.expiresAt === null || Date.parse(token.expiresAt) > now);

export class ServiceAccountService {
  readonly #deps: ServiceAccountDeps;

  constructor(deps: ServiceAccountDeps) {
    this.#deps = deps;
  }

  #view(row: ServiceAccountRow): ServiceAccountView {
    const now = this.#deps.clock();
    const tokenCount = this.#deps.store.serviceAccounts.tokensOf(row.id).filter((t) => live(t, now)).length;
    const { createdBy: _createdBy, ...rest } = row;
    return { ...rest, scopes: row.scopes as Scope[], tokenCount };
  }

  tokenView(row: ServiceAccountTokenRow): ServiceAccountTokenView {
    return {
      id: row.id,
      serviceAccountId: row.serviceAccountId,
      label: row.label,
      scopes: row.scopes as Scope[],
      tokenPreview: `fsa_${row.id}.${row.tokenPrefix}...`,
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
      lastUsedAt: row.lastUsedAt,
      createdAt: row.createdAt,
      updatedAt: row.revokedAt ?? row.createdAt,
    };
  }

  list(): ServiceAccountView[] {
    return this.#deps.store.serviceAccounts.list().map((row) => this.#view(row));
  }

  create(actorUserId: string, input: ServiceAccountInput & { name: string }) {
    const { store, clock } = this.#deps;
    const name = checkName(input.name);
    const scopes = checkScopes(input.scopes ?? []);
    const description = checkDescription(input.description ?? '');
    const now = iso(clock());
    const row: ServiceAccountRow = {
      id: newEntityId(clock()),
      name,
      description,
      scopes,
      active: input.active ?? true,
      lastUsedAt: null,
      createdBy: actorUserId,
      createdAt: now,
      updatedAt: now,
    };
    store.transaction(() => {
      this.#uniqueName(name, null);
      store.serviceAccounts.insert(row);
    });
    this.#record(actorUserId, 'service_account.created', row);
    return this.#view(row);
  }

  update(actorUserId: string, id: string, input: ServiceAccountInput) {
    const { store, clock } = this.#deps;
    const result = store.transaction(() => {
      const current = store.serviceAccounts.byId(id);
      if (!current) throw new ServiceError('NOT_FOUND', SERVICE_ACCOUNT_NOT_FOUND);
      const next: ServiceAccountRow = {
        ...current,
        name: input.name == null ? current.name : checkName(input.name),
        description: input.description == null ? current.description : checkDescription(input.description),
        scopes: input.scopes == null ? current.scopes : checkScopes(input.scopes),
        active: input.active ?? current.active,
      };
      if (input.name != null) this.#uniqueName(next.name, id);
      const fields = (['name', 'description', 'scopes', 'active'] as const).filter(
        (key) => JSON.stringify(next[key]) !== JSON.stringify(current[key]),
      );
      if (fields.length > 0) next.updatedAt = iso(clock());
      store.serviceAccounts.replace(next);
      return { next, fields };
    });
    this.#record(actorUserId, 'service_account.updated', result.next, [...result.fields]);
    this.#deps.bus.publish({ kind: 'serviceAccount', serviceAccountId: id, change: 'updated' });
    return this.#view(result.next);
  }

  /** Removes the account and its tokens; the answer shows it with `tokenCount` 0. */
  delete(actorUserId: string, id: string) {
    const { store } = this.#deps;
    const row = store.transaction(() => {
      const current = store.serviceAccounts.byId(id);
      if (!current) throw new ServiceError('NOT_FOUND', SERVICE_ACCOUNT_NOT_FOUND);
      store.serviceAccounts.delete(id);
      return current;
    });
    this.#record(actorUserId, 'service_account.deleted', row);
    this.#deps.bus.publish({ kind: 'serviceAccount', serviceAccountId: id, change: 'deleted' });
    const { createdBy: _createdBy, ...rest } = row;
    return { ...rest, scopes: row.scopes as Scope[], tokenCount: 0 };
  }

  /** All tokens of an account, newest first. */
  tokens(serviceAccountId: string): ServiceAccountTokenView[] {
    const { store } = this.#deps;
    if (!store.serviceAccounts.byId(serviceAccountId))
      throw new ServiceError('NOT_FOUND', SERVICE_ACCOUNT_NOT_FOUND);
    return store.serviceAccounts.tokensOf(serviceAccountId).map((row) => this.tokenView(row));
  }

  issue(actorUserId: string, serviceAccountId: string, input: TokenInput): IssuedToken {
    const { store } = this.#deps;
    const issued = store.transaction(() => {
      const account = store.serviceAccounts.byId(serviceAccountId);
      if (!account) throw new ServiceError('NOT_FOUND', SERVICE_ACCOUNT_NOT_FOUND);
      const label = checkLabel(input.label);
      const held = account.scopes as string[];
      const scopes = input.scopes == null ? (held as Scope[]) : [...new Set(input.scopes)];
      if (scopes.length === 0 || scopes.some((scope) => !held.includes(scope)))
        throw bad('Token scopes must be a subset of the service account scopes');
      const hours = input.expiresInHours == null ? null : clampHours(input.expiresInHours);
      return this.#newToken(
        actorUserId,
        serviceAccountId,
        label,
        scopes,
        hours === null ? null : hours * 3_600_000,
      );
    });
    this.#deps.audit.record({
      actorUserId,
      action: 'service_account_token.issued',
      targetType: 'service_account_token',
      targetId: issued.record.id,
      metadata: { serviceAccountId, scopes: issued.record.scopes, expiresAt: issued.record.expiresAt },
    });
    return issued;
  }

  /** Revokes the token and issues its successor in one transaction; expired tokens may be rotated. */
  rotate(actorUserId: string, tokenId: string, expiresInHours?: number | null): IssuedToken {
    const { store, clock } = this.#deps;
    const result = store.transaction(() => {
      const old = store.serviceAccounts.tokenById(tokenId);
      if (!old) throw new ServiceError('NOT_FOUND', TOKEN_NOT_FOUND);
      if (old.revokedAt !== null) throw bad('Token is revoked');
      const lifetimeMs =
        expiresInHours != null
          ? clampHours(expiresInHours) * 3_600_000
          : old.expiresAt !== null
            ? Date.parse(old.expiresAt) - Date.parse(old.createdAt)
            : null;
      store.serviceAccounts.revokeToken(old.id, iso(clock()));
      const next = this.#newToken(
        actorUserId,
        old.serviceAccountId,
        old.label,
        old.scopes as Scope[],
        lifetimeMs,
      );
      return { old, next };
    });
    this.#deps.audit.record({
      actorUserId,
      action: 'service_account_token.rotated',
      targetType: 'service_account_token',
      targetId: result.next.record.id,
      metadata: {
        serviceAccountId: result.old.serviceAccountId,
        replacedTokenId: result.old.id,
        expiresAt: result.next.record.expiresAt,
      },
    });
    return result.next;
  }

  /** True when this call revoked it, false when it already was. */
  revoke(actorUserId: string, tokenId: string): boolean {
    const { store, clock } = this.#deps;
    const token = store.transaction(() => {
      const row = store.serviceAccounts.tokenById(tokenId);
      if (!row) throw new ServiceError('NOT_FOUND', TOKEN_NOT_FOUND);
      if (row.revokedAt !== null) return null;
      store.serviceAccounts.revokeToken(row.id, iso(clock()));
      return row;
    });
    if (!token) return false;
    this.#deps.audit.record({
      actorUserId,
      action: 'service_account_token.revoked',
      targetType: 'service_account_token',
      targetId: token.id,
      metadata: { serviceAccountId: token.serviceAccountId },
    });
    return true;
  }

  /**
   * §12 authentication of `fsa_<tokenId>.<secret>`: the record by id, the hash compared in constant
   * time, not revoked or expired, the account present and active. The scopes that count are the
   * token's that the account still holds.
   */
  authenticate(tokenId: string, secret: string): { serviceAccountId: string; scopes: string[] } | null {
    const { store, clock, tokens } = this.#deps;
    const token = store.serviceAccounts.tokenById(tokenId);
    if (!token || !constantTimeEqual(tokens.hash('sa-token', secret), token.tokenHash)) return null;
    const now = clock();
    if (!live(token, now)) return null;
    const account = store.serviceAccounts.byId(token.serviceAccountId);
    if (!account?.active) return null;
    const held = account.scopes as string[];
    const scopes = (token.scopes as string[]).filter((scope) => held.includes(scope));
    const stale = (at: string | null) => at === null || now - Date.parse(at) >= LAST_USED_GRANULARITY_MS;
    if (stale(token.lastUsedAt) || stale(account.lastUsedAt)) {
      const at = iso(now);
      store.transaction(() => {
        store.serviceAccounts.touchToken(token.id, at);
        store.serviceAccounts.touchAccount(account.id, at);
      });
    }
    return { serviceAccountId: account.id, scopes };
  }

  /** Introspection's "Access revoked" check of a service-account flow token (§13.2). */
  isActive(serviceAccountId: string): boolean {
    return this.#deps.store.serviceAccounts.byId(serviceAccountId)?.active === true;
  }

  #newToken(
    actorUserId: string,
    serviceAccountId: string,
    label: string | null,
    scopes: Scope[],
    lifetimeMs: number | null,
  ): IssuedToken {
    const { store, clock, tokens } = this.#deps;
    const now = clock();
    const secret = randomBytes(32).toString('base64url');
    const row: ServiceAccountTokenRow = {
      id: newEntityId(now),
      serviceAccountId,
      label,
      tokenHash: tokens.hash('sa-token', secret),
      tokenPrefix: secret.slice(0, PREFIX_LENGTH),
      scopes,
      expiresAt: lifetimeMs === null ? null : iso(now + lifetimeMs),
      revokedAt: null,
      lastUsedAt: null,
      createdBy: actorUserId,
      createdAt: iso(now),
    };
    store.serviceAccounts.insertToken(row);
    return { token: `fsa_${row.id}.${secret}`, record: this.tokenView(row) };
  }

  #uniqueName(name: string, exceptId: string | null) {
    const other = this.#deps.store.serviceAccounts.byName(name);
    if (other && other.id !== exceptId) throw bad('A service account with this name already exists');
  }

  #record(actorUserId: string, action: string, row: ServiceAccountRow, fields?: string[]) {
    this.#deps.audit.record({
      actorUserId,
      action,
      targetType: 'service_account',
      targetId: row.id,
      metadata: { name: row.name, scopes: row.scopes, ...(fields ? { fields } : {}) },
    });
  }
}
