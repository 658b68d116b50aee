// New rows of the account tables, built the one way §6 describes.
import { iso, newEntityId, newSecretToken } from '../auth/tokens.ts';
import type { Role, UserRow } from '../db/repositories/users.ts';
import type { AccountServices } from './services.ts';

const HOUR_MS = 3_600_000;

/** A new user row per §6: session version 0, `lastLogin` equal to the registration time. */
export function newUserRow(
  services: Pick<AccountServices, 'clock'>,
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

/**
 * An invite or reset token (§6.3, §6.4): `token` is shown to the caller once; the row stores only
 * `H(purpose, token)`, beside the id, creation time and expiry it gets here.
 */
export function newOneTimeToken(
  services: Pick<AccountServices, 'tokens'>,
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

/** A one-time token's lifetime as asked for (`expiresInHours`): a default, clamped into range. */
export function lifetimeHours(
  value: number | null | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === null || value === undefined) return fallback;
  return Math.min(max, Math.max(min, value));
}
