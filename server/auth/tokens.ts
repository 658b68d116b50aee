import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type HashPurpose = 'sa-token' | 'invite' | 'reset' | 'limiter';

/** `H(purpose, value)` of spec §1: hex HMAC-SHA256 keyed with TOKEN_PEPPER. */
export class TokenHasher {
  readonly #pepper: string;

  constructor(pepper: string) {
    this.#pepper = pepper;
  }

  hash(purpose: HashPurpose, value: string): string {
    return createHmac('sha256', this.#pepper).update(`${purpose}\n${value}`).digest('hex');
  }
}

/** Entity ids (§19.1): 8 hex of the creation time in Unix seconds, then 16 random hex. */
export function newEntityId(nowMs: number): string {
  const seconds = Math.floor(nowMs / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8);
  return seconds + randomBytes(8).toString('hex');
}

export function isEntityId(text: string): boolean {
  return /^[0-9a-f]{24}$/.test(text);
}

/** Invite and reset tokens: 32 random bytes, base64url without padding. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
