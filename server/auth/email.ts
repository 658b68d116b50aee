/** Emails are trimmed and lowercased before any use (dashboard spec §1). */
export function normaliseEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** The spec's deliberately simple rule; expects a normalised address. */
export function isValidEmail(email: string): boolean {
  // C0 and C1 control characters: they end strings in logs and headers downstream.
  if (email.length > 254 || /\p{Cc}/u.test(email)) return false;
  const parts = email.split('@');
  if (parts.length !== 2) return false;
  const [local = '', domain = ''] = parts;
  if (local.length < 1 || local.length > 64 || /\s/.test(local)) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return false;
  return /^[a-z]{2,}$/.test(labels[labels.length - 1] ?? '');
}

export const INVALID_EMAIL = 'Invalid email address';
