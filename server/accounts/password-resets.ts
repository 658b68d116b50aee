// Password resets (§6.4): anonymous requests (queued behind their quota, see reset-requests.ts), the
// admin-issued token, and the reset itself, which ends every session of the account.
import { isValidEmail, normaliseEmail } from '../auth/email.ts';
import { iso } from '../auth/tokens.ts';
import type { PasswordResetRow } from '../db/repositories/password-resets.ts';
import type { UserRow } from '../db/repositories/users.ts';
import { ServiceError } from '../errors.ts';
import { requireStrongPassword } from './checks.ts';
import { USER_NOT_FOUND } from './messages.ts';
import { lifetimeHours, newOneTimeToken } from './rows.ts';
import type { AccountServices, CallerAddresses } from './services.ts';

const INVALID_RESET = 'Invalid or expired reset token';

/** Stores a new token for the user in place of any earlier one (one live token per account). */
function issue(
  services: AccountServices,
  userId: string,
  hours: number,
  issuedBy: string | null,
): { token: string; row: PasswordResetRow } {
  const { store, clock } = services;
  const now = clock();
  const { token, stored } = newOneTimeToken(services, 'reset', now, hours);
  const row: PasswordResetRow = { ...stored, userId, issuedBy, usedAt: null, revokedAt: null };
  store.passwordResets.deleteForUser(userId);
  store.passwordResets.insert(row);
  return { token, row };
}

/**
 * Anyone may ask for a reset of any address. The request never fails and does the same work for
 * every address: whether it has an account is decided later, in `actOnResetRequests`.
 */
export function requestPasswordReset(
  services: AccountServices,
  caller: CallerAddresses,
  rawEmail: string,
): void {
  try {
    const email = normaliseEmail(rawEmail);
    if (isValidEmail(email)) services.resetRequests.request(email, caller.clientIp);
  } catch (error) {
    // Never an error: the answer must not reveal whether the address has an account.
    services.logger.error({ err: error }, 'requestPasswordReset failed');
  }
}

/**
 * Acts on a batch of `requestPasswordReset` calls that passed their quota (see ResetRequests): a
 * 2-hour token and an audit event for each email that belongs to a user, nothing for the others.
 */
export function actOnResetRequests(services: AccountServices, emails: string[]): void {
  const { store, audit } = services;
  const requested = store.transaction(() => {
    const users: string[] = [];
    for (const email of emails) {
      const found = store.users.byEmail(email);
      if (!found) continue;
      issue(services, found.id, 2, null);
      users.push(found.id);
    }
    return users;
  });
  for (const userId of requested) {
    audit.record({
      actorUserId: null,
      action: 'password_reset.requested',
      targetType: 'user',
      targetId: userId,
    });
  }
}

/** A reset token for an admin to hand over; `expiresInHours` defaults to 24, clamped to 1–336. */
export function issuePasswordReset(
  services: AccountServices,
  admin: UserRow,
  userId: string,
  expiresInHours: number | null | undefined,
): { userId: string; token: string; expiresAt: string } {
  const { store, audit } = services;
  const hours = lifetimeHours(expiresInHours, 24, 1, 336);
  const { token, row } = store.transaction(() => {
    const user = store.users.byId(userId);
    if (!user) throw new ServiceError('NOT_FOUND', USER_NOT_FOUND);
    return issue(services, user.id, hours, admin.id);
  });
  audit.record({
    actorUserId: admin.id,
    action: 'password_reset.admin_issued',
    targetType: 'user',
    targetId: row.userId,
    metadata: { expiresAt: row.expiresAt },
  });
  return { userId: row.userId, token, expiresAt: row.expiresAt };
}

/** Sets the password the token was issued for and ends that account's sessions. */
export async function resetPassword(
  services: AccountServices,
  input: { token: string; password: string },
): Promise<void> {
  const { store, tokens, passwords, audit, clock } = services;
  const tokenHash = tokens.hash('reset', input.token);
  const usable = () => {
    const row = store.passwordResets.byTokenHash(tokenHash);
    if (!row || row.usedAt !== null || row.revokedAt !== null || row.expiresAt <= iso(clock())) {
      throw new ServiceError('FORBIDDEN', INVALID_RESET);
    }
    return row;
  };
  usable();
  requireStrongPassword(input.password);
  const passwordHash = await passwords.hash(input.password);
  const reset = store.transaction(() => {
    const row = usable();
    const user = store.users.byId(row.userId);
    if (!user) throw new ServiceError('FORBIDDEN', INVALID_RESET);
    const now = iso(clock());
    store.users.update(user.id, { passwordHash, sessionVersion: user.sessionVersion + 1 });
    store.passwordResets.markUsed(row.id, now);
    store.passwordResets.deleteForUser(user.id, row.id);
    return row;
  });
  audit.record({
    actorUserId: null,
    action: 'password_reset.completed',
    targetType: 'user',
    targetId: reset.userId,
  });
  services.bus.publish({ kind: 'user', userId: reset.userId, change: 'password' });
}
