// Invitations (§6.3): an admin invites an email with a role; the token, shown once, creates the
// account. Each write is one transaction; the audit record follows the commit.
import { iso } from '../auth/tokens.ts';
import type { InviteRow } from '../db/repositories/invites.ts';
import type { UserRow } from '../db/repositories/users.ts';
import { ServiceError } from '../errors.ts';
import { checkUserLimit, requireStrongPassword, requireUnusedEmail, validEmail } from './checks.ts';
import { DATA_NOT_VALID, EMAIL_TAKEN } from './messages.ts';
import { lifetimeHours, newOneTimeToken, newUserRow } from './rows.ts';
import type { AccountServices } from './services.ts';
import { sessionToken } from './users.ts';

const INVALID_INVITE = 'Invalid or expired invite';

function isPending(row: InviteRow, nowIso: string): boolean {
  return row.revokedAt === null && row.acceptedAt === null && row.expiresAt > nowIso;
}

/** Pending invites, newest first. */
export function listPendingInvites(services: AccountServices): InviteRow[] {
  return services.store.invites.pending(iso(services.clock()));
}

/**
 * A new invite, replacing any pending one for the same email. `expiresInHours` defaults to 72 and
 * is clamped to 1–336. The token is returned here and never again.
 */
export function createInvite(
  services: AccountServices,
  admin: UserRow,
  input: { email: string; role: 'viewer' | 'editor' | 'admin'; expiresInHours?: number | null },
): { invite: InviteRow; token: string } {
  const { store, audit, clock } = services;
  const email = validEmail(input.email);
  const role = input.role;
  if (role === 'admin') throw new ServiceError('BAD_USER_INPUT', 'Invites can grant only VIEWER or EDITOR');
  const hours = lifetimeHours(input.expiresInHours, 72, 1, 336);
  const now = clock();
  const { token, stored } = newOneTimeToken(services, 'invite', now, hours);
  const { invite, revokedPrevious } = store.transaction(() => {
    requireUnusedEmail(services, email, EMAIL_TAKEN);
    checkUserLimit(services);
    const revokedPrevious = store.invites.revokePendingFor(email, iso(now));
    const invite: InviteRow = {
      ...stored,
      email,
      role,
      revokedAt: null,
      acceptedAt: null,
      createdBy: admin.id,
    };
    store.invites.insert(invite);
    return { invite, revokedPrevious };
  });
  audit.record({
    actorUserId: admin.id,
    action: 'invite.created',
    targetType: 'invite',
    targetId: invite.id,
    metadata: { email, role, expiresAt: invite.expiresAt, revokedPrevious },
  });
  return { invite, token };
}

/** True when a pending invite was revoked; false when it was already used, revoked or expired. */
export function revokeInvite(services: AccountServices, admin: UserRow, inviteId: string): boolean {
  const { store, audit, clock } = services;
  const now = iso(clock());
  const invite = store.transaction(() => {
    const row = store.invites.byId(inviteId);
    if (!row) throw new ServiceError('NOT_FOUND', 'Invite not found');
    if (!isPending(row, now)) return null;
    store.invites.update(row.id, { revokedAt: now });
    return row;
  });
  if (!invite) return false;
  audit.record({
    actorUserId: admin.id,
    action: 'invite.revoked',
    targetType: 'invite',
    targetId: invite.id,
    metadata: { email: invite.email },
  });
  return true;
}

/** Creates the invited account and returns a session token for it. */
export async function acceptInvite(
  services: AccountServices,
  input: { token: string; password: string },
): Promise<string> {
  const { store, tokens, passwords, audit, clock } = services;
  const tokenHash = tokens.hash('invite', input.token);
  const usable = () => {
    const row = store.invites.byTokenHash(tokenHash);
    if (!row || !isPending(row, iso(clock()))) throw new ServiceError('FORBIDDEN', INVALID_INVITE);
    return row;
  };
  const found = usable();
  requireStrongPassword(input.password);
  requireUnusedEmail(services, found.email, DATA_NOT_VALID);
  checkUserLimit(services);
  const passwordHash = await passwords.hash(input.password);
  const { user, invite } = store.transaction(() => {
    // Another request may have accepted or revoked it while the password was hashed.
    const invite = usable();
    requireUnusedEmail(services, invite.email, DATA_NOT_VALID);
    checkUserLimit(services);
    const user = newUserRow(services, { email: invite.email, passwordHash, role: invite.role });
    store.users.insert(user);
    store.invites.update(invite.id, { acceptedAt: user.registrationDate });
    return { user, invite };
  });
  audit.record({
    actorUserId: user.id,
    action: 'invite.accepted',
    targetType: 'invite',
    targetId: invite.id,
    metadata: { email: invite.email, role: invite.role },
  });
  return sessionToken(services, user);
}
