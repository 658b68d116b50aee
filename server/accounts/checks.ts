// Checks several account operations make before (and again inside) their transactions.
import { INVALID_EMAIL, isValidEmail, normaliseEmail } from '../auth/email.ts';
import { isStrongPassword, WEAK_PASSWORD } from '../auth/password-policy.ts';
import { ServiceError } from '../errors.ts';
import type { AccountServices } from './services.ts';

/** Normalised and valid, or BAD_USER_INPUT "Invalid email address". */
export function validEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (!isValidEmail(email)) throw new ServiceError('BAD_USER_INPUT', INVALID_EMAIL);
  return email;
}

export function requireStrongPassword(password: string): void {
  if (!isStrongPassword(password)) throw new ServiceError('BAD_USER_INPUT', WEAK_PASSWORD);
}

/** BAD_USER_INPUT `message` when a user already has the (normalised) email. */
export function requireUnusedEmail(services: AccountServices, email: string, message: string): void {
  if (services.store.users.byEmail(email)) throw new ServiceError('BAD_USER_INPUT', message);
}

/** `USER_LIMIT` counts every stored user, active or not (§6.2). */
export function checkUserLimit(services: AccountServices): void {
  const limit = services.config.userLimit;
  if (limit > 0 && services.store.users.count() >= limit)
    throw new ServiceError('FORBIDDEN', 'User limit reached');
}
