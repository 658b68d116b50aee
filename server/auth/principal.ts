import type { UserRow } from '../db/repositories/users.ts';
import type { Store } from '../db/store.ts';
import type { SessionTokens } from './sessions.ts';

export type Principal =
  | { kind: 'anonymous' }
  | { kind: 'user'; user: UserRow }
  | { kind: 'service'; serviceAccountId: string; scopes: string[] };

export const ANONYMOUS: Principal = { kind: 'anonymous' };

/**
 * The service-account check of §12 (server/service-accounts); tests may plug in their own. Effective
 * scopes come back already intersected with the account's current ones.
 */
export type ServiceAccountAuthenticator = (
  tokenId: string,
  secret: string,
) => Promise<{ serviceAccountId: string; scopes: string[] } | null>;

/**
 * Whether a session issued at `sessionVersion` still holds for the account as stored now: the
 * account exists, is active, and its session version has not moved on (a password reset or an
 * admin's change of role or status moves it). Checked on every request and again on every event of
 * a long-lived subscription.
 */
export function sessionStillHolds(stored: UserRow | undefined, sessionVersion: number): stored is UserRow {
  return stored?.active === true && stored.sessionVersion === sessionVersion;
}

const SERVICE_TOKEN = /^fsa_([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/;

export interface PrincipalResolution {
  principal: Principal;
  /** A credential was presented and rejected (counted in `authFailureCount`). */
  rejected: boolean;
}

/**
 * §5.1: who is calling. A rejected credential never raises an error: the caller is anonymous, and
 * every operation then answers as it would to anyone without credentials.
 */
export async function resolvePrincipal(
  authorization: string | undefined,
  deps: { sessions: SessionTokens; store: Store; serviceAccounts: ServiceAccountAuthenticator },
): Promise<PrincipalResolution> {
  const header = authorization?.trim() ?? '';
  const [scheme = '', ...rest] = header.split(/\s+/);
  if (scheme.toLowerCase() !== 'bearer') return { principal: ANONYMOUS, rejected: false };
  // A Bearer header whose credential is missing or not one token is a rejected credential too.
  const credential = rest.join(' ');
  const rejected = { principal: ANONYMOUS, rejected: true };
  if (credential.startsWith('fsa_')) {
    const parts = SERVICE_TOKEN.exec(credential);
    if (!parts) return rejected;
    const account = await deps.serviceAccounts(parts[1] ?? '', parts[2] ?? '');
    return account ? { principal: { kind: 'service', ...account }, rejected: false } : rejected;
  }
  const claims = await deps.sessions.verify(credential);
  if (!claims) return rejected;
  const user = deps.store.users.byId(claims.userId);
  if (!sessionStillHolds(user, claims.sessionVersion)) return rejected;
  return { principal: { kind: 'user', user }, rejected: false };
}
