// Helpers shared by the user, invite and password-reset modules.
import { INVALID_EMAIL, isValidEmail, normaliseEmail } from '../../auth/email.ts';
import { isStrongPassword, WEAK_PASSWORD } from '../../auth/password-policy.ts';
import { iso, newEntityId } from '../../auth/tokens.ts';
import type { Role, UserRow } from '../../db/repositories/users.ts';
import type { ApiServices } from '../context.ts';
import { badUserInput, forbidden } from '../errors.ts';

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

export const HOUR_MS = 3_600_000;
