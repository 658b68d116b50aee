// The auth policy of spec §7: stored settings with defaults, the first-run view of §6.1, and edits.
import { iso } from '../auth/tokens.ts';
import type { UserRow } from '../db/repositories/users.ts';
import type { Store } from '../db/store.ts';
import { ServiceError } from '../errors.ts';
import { isLoopbackIp } from '../http/client-address.ts';
import type { AccountServices, CallerAddresses } from './services.ts';

export interface StoredPolicy {
  registrationMode: 'disabled' | 'invite' | 'open';
  registrationDefaultRole: 'viewer' | 'editor' | 'admin';
  editorCanPublish: boolean;
  dashboardDefaultVisibility: 'private' | 'link' | 'public';
  dashboardPublicListingEnabled: boolean;
  executionMode: 'safe' | 'trusted';
}

export interface AuthPolicy extends StoredPolicy {
  policyEditLock: boolean;
}

/** Fields to change; omitted (or null) ones stay as they are. */
export type PolicyUpdate = { [K in keyof StoredPolicy]?: StoredPolicy[K] | null };

const DEFAULTS: StoredPolicy = {
  registrationMode: 'disabled',
  registrationDefaultRole: 'viewer',
  editorCanPublish: false,
  dashboardDefaultVisibility: 'private',
  dashboardPublicListingEnabled: false,
  executionMode: 'safe',
};

const ALLOWED: { [K in keyof StoredPolicy]: readonly StoredPolicy[K][] } = {
  registrationMode: ['disabled', 'invite', 'open'],
  // ADMIN is never a registration default, even if someone wrote it into the table by hand.
  registrationDefaultRole: ['viewer', 'editor'],
  editorCanPublish: [true, false],
  dashboardDefaultVisibility: ['private', 'link', 'public'],
  dashboardPublicListingEnabled: [true, false],
  executionMode: ['safe', 'trusted'],
};

const FIELDS = Object.keys(DEFAULTS) as (keyof StoredPolicy)[];

/** The stored policy; missing or unrecognised keys read as their defaults. */
export function readPolicy(store: Store): StoredPolicy {
  const stored = store.policy.all();
  const policy = { ...DEFAULTS } as Record<keyof StoredPolicy, unknown>;
  for (const field of FIELDS) {
    const value = stored.get(field);
    if ((ALLOWED[field] as readonly unknown[]).includes(value)) policy[field] = value;
  }
  return policy as StoredPolicy;
}

/** §6.1: while nobody has an account, a caller on this machine may create the first admin. */
export function isFirstRunCaller(services: AccountServices, caller: CallerAddresses): boolean {
  return (
    services.config.trustProxyHops === 0 &&
    isLoopbackIp(caller.socketAddress) &&
    services.store.users.count() === 0
  );
}

function withLock(services: AccountServices, policy: StoredPolicy): AuthPolicy {
  return { ...policy, policyEditLock: services.config.policyEditLock };
}

/** The admin's view of the policy. */
export function authPolicy(services: AccountServices): AuthPolicy {
  return withLock(services, readPolicy(services.store));
}

/** What sign-in and registration screens see: on first run, registration is open to an admin. */
export function publicAuthPolicy(services: AccountServices, caller: CallerAddresses): AuthPolicy {
  const policy = authPolicy(services);
  if (isFirstRunCaller(services, caller))
    return { ...policy, registrationMode: 'open', registrationDefaultRole: 'admin' };
  return policy;
}

/** Stores the given fields that differ, audits what changed, and returns the policy as it now is. */
export function setAuthPolicy(services: AccountServices, admin: UserRow, update: PolicyUpdate): AuthPolicy {
  const { store, audit, clock, config } = services;
  if (config.policyEditLock) throw new ServiceError('FORBIDDEN', 'Auth policy is locked by configuration');
  if (update.registrationDefaultRole === 'admin') {
    throw new ServiceError('BAD_USER_INPUT', 'registrationDefaultRole cannot be ADMIN');
  }
  const now = iso(clock());
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const updated = store.transaction(() => {
    const current = readPolicy(store);
    for (const field of FIELDS) {
      const next = update[field];
      if (next === undefined || next === null || next === current[field]) continue;
      changes[field] = { from: current[field], to: next };
      store.policy.set(field, next, now, admin.id);
    }
    return readPolicy(store);
  });
  if (Object.keys(changes).length > 0) {
    audit.record({
      actorUserId: admin.id,
      action: 'auth.policy.updated',
      targetType: 'auth_policy',
      targetId: null,
      metadata: { changes },
    });
  }
  return withLock(services, updated);
}
