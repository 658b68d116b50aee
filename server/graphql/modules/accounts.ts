// Helpers shared by the user, invite and password-reset modules.
import { INVALID_EMAIL, isValidEmail, normaliseEmail } from '../../auth/email.ts';
import { isStrongPassword, WEAK_PASSWORD } from '../../auth/password-policy.ts';
import { iso, newEntityId, newSecretToken } from '../../auth/tokens.ts';
import type { Role, UserRow } from '../../db/repositories/users.ts';
import type { ApiServices } from '../context.ts';
import { badUserInput, forbidden } from '../errors.ts';

const HOUR_MS = 3_600_000;

export interface UserView {
  _id: string;
  email: string;
  role: Role;
  active: boolean;
  registrationDate: string;
  lastLogin: string;
}

export function toUserView(row: UserRow): UserView {
  return {
    _id: row.id,
    email: row.email,
    role: row.role,
    active: row.active,
    registrationDate: row.registrationDate,
    lastLogin: row.lastLogin,
  };
}

/** Normalised and valid, or BAD_USER_INPUT "Invalid email address". */
export function validEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (!isValidEmail(email)) throw badUserInput(INVALID_EMAIL);
  return email;
}

export function requireStrongPassword(password: string): void {
  if (!isStrongPassword(password)) throw badUserInput(WEAK_PASSWORD);
}

export const EMAIL_TAKEN = 'A user with this email already exists';
/** The answer that does not say why a self-service sign-up was refused (§6.2, §6.3). */
export const DATA_NOT_VALID = 'Data provided is not valid';

/** BAD_USER_INPUT `message` when a user already has the (normalised) email. */
export function requireUnusedEmail(services: ApiServices, email: string, message: string): void {
  if (services.store.users.byEmail(email)) throw badUserInput(message);
}

/** `USER_LIMIT` counts every stored user, active or not (§6.2). */
export function checkUserLimit(services: ApiServices): void {
  const limit = services.config.userLimit;
  if (limit > 0 && services.store.users.count() >= limit) throw forbidden('User limit reached');
}

/** A new user row per §6: session version 0, `lastLogin` equal to the registration time. */
export function newUserRow(
  services: ApiServices,
  fields: { email: string; passwordHash: string; role: Role; active?: boolean },
): UserRow {
  const now = services.clock();
  return {
    id: newEntityId(now),
    email: fields.email,
    passwordHash: fields.passwordHash,
    role: fields.role,
    active: fields.active ?? true,
    sessionVersion: 0,
    registrationDate: iso(now),
    lastLogin: iso(now),
  };
}

export async function sessionToken(services: ApiServices, user: UserRow): Promise<{ token: string }> {
  return { token: await services.sessions.sign(user) };
}

/**
 * An invite or reset token (§6.3, §6.4): `token` is shown to the caller once; the row stores only
 * `H(purpose, token)`, beside the id, creation time and expiry it gets here.
 */
export function newOneTimeToken(
  services: ApiServices,
  purpose: 'invite' | 'reset',
  nowMs: number,
  hours: number,
): { token: string; stored: { id: string; tokenHash: string; expiresAt: string; createdAt: string } } {
  const token = newSecretToken();
  return {
    token,
    stored: {
      id: newEntityId(nowMs),
      tokenHash: services.tokens.hash(purpose, token),
      expiresAt: iso(nowMs + hours * HOUR_MS),
      createdAt: iso(nowMs),
    },
  };
}

/** `expiresInHours` arguments: a default, clamped into range. */
export function clampHours(
  value: number | null | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === null || value === undefined) return fallback;
  return Math.min(max, Math.max(min, value));
}
