import { iso } from '../../auth/tokens.ts';
import type { Store } from '../../db/store.ts';
import { isLoopbackIp } from '../../http/client-address.ts';
import { type RequestContext, requireAdmin } from '../context.ts';
import { badUserInput, forbidden } from '../errors.ts';

export const typeDefs = /* GraphQL */ `
  enum UserRole {
    VIEWER
    EDITOR
    ADMIN
  }

  enum RegistrationMode {
    DISABLED
    INVITE
    OPEN
  }

  enum ExecutionMode {
    SAFE
    TRUSTED
  }

  enum DashboardVisibility {
    PRIVATE
    LINK
    PUBLIC
  }

  "The auth policy (§7); none of its fields is secret."
  type AuthPolicy {
    registrationMode: RegistrationMode!
    registrationDefaultRole: UserRole!
    editorCanPublish: Boolean!
    dashboardDefaultVisibility: DashboardVisibility!
    dashboardPublicListingEnabled: Boolean!
    executionMode: ExecutionMode!
    policyEditLock: Boolean!
  }

  extend type Query {
    "For sign-in and registration screens; anyone may read it."
    publicAuthPolicy: AuthPolicy!
    "Admin only."
    authPolicy: AuthPolicy!
  }

  extend type Mutation {
    "Admin only; omitted fields stay unchanged."
    setAuthPolicy(
      registrationMode: RegistrationMode
      registrationDefaultRole: UserRole
      editorCanPublish: Boolean
      dashboardDefaultVisibility: DashboardVisibility
      dashboardPublicListingEnabled: Boolean
      executionMode: ExecutionMode
    ): AuthPolicy!
  }
`;

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
export function isFirstRunCaller(context: RequestContext): boolean {
  const { services } = context;
  return (
    services.config.trustProxyHops === 0 &&
    isLoopbackIp(context.socketAddress) &&
    services.store.users.count() === 0
  );
}

function withLock(context: RequestContext, policy: StoredPolicy): AuthPolicy {
  return { ...policy, policyEditLock: context.services.config.policyEditLock };
}

type PolicyUpdate = { [K in keyof StoredPolicy]?: StoredPolicy[K] | null };

export const resolvers = {
  UserRole: { VIEWER: 'viewer', EDITOR: 'editor', ADMIN: 'admin' },
  RegistrationMode: { DISABLED: 'disabled', INVITE: 'invite', OPEN: 'open' },
  ExecutionMode: { SAFE: 'safe', TRUSTED: 'trusted' },
  DashboardVisibility: { PRIVATE: 'private', LINK: 'link', PUBLIC: 'public' },
  Query: {
    publicAuthPolicy: (_: unknown, __: unknown, context: RequestContext): AuthPolicy => {
      const policy = withLock(context, readPolicy(context.services.store));
      if (isFirstRunCaller(context))
        return { ...policy, registrationMode: 'open', registrationDefaultRole: 'admin' };
      return policy;
    },
    authPolicy: (_: unknown, __: unknown, context: RequestContext): AuthPolicy => {
      requireAdmin(context);
      return withLock(context, readPolicy(context.services.store));
    },
  },
  Mutation: {
    setAuthPolicy: (_: unknown, args: PolicyUpdate, context: RequestContext): AuthPolicy => {
      const admin = requireAdmin(context);
      const { store, audit, clock, config } = context.services;
      if (config.policyEditLock) throw forbidden('Auth policy is locked by configuration');
      if (args.registrationDefaultRole === 'admin') {
        throw badUserInput('registrationDefaultRole cannot be ADMIN');
      }
      const now = iso(clock());
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      const updated = store.transaction(() => {
        const current = readPolicy(store);
        for (const field of FIELDS) {
          const next = args[field];
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
      return withLock(context, updated);
    },
  },
};
