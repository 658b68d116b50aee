import { randomBytes } from 'node:crypto';
import { hash, parseOptions, verify } from '@node-rs/argon2';

export interface Argon2Cost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** §5.3: m = 19456 KiB, t = 2, p = 1. */
export const SPEC_ARGON2_COST: Argon2Cost = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

// `Algorithm` is a const enum in the package's typings, which erasable TypeScript cannot import.
const ARGON2ID = 2;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(stored: string, password: string): Promise<boolean>;
  /** A hash of a random value made at start: unknown emails are verified against it (same work). */
  readonly dummyHash: string;
  needsRehash(stored: string): boolean;
}

/** Argon2id through the prebuilt `@node-rs/argon2`; PHC strings carry their parameters. */
export async function createArgon2Hasher(cost: Argon2Cost = SPEC_ARGON2_COST): Promise<PasswordHasher> {
  const options = { ...cost, algorithm: ARGON2ID, outputLen: 32 };
  const make = (password: string) => hash(password, { ...options, salt: randomBytes(16) });
  const dummy = await make(randomBytes(32).toString('base64url'));
  return {
    hash: make,
    verify: async (stored, password) => {
      try {
        return await verify(stored, password);
      } catch {
        // A malformed stored hash is a failed login, never a 500.
        return false;
      }
    },
    dummyHash: dummy,
    needsRehash: (stored) => {
      try {
        const parsed = parseOptions(stored);
        return (
          parsed.algorithm !== ARGON2ID ||
          parsed.memoryCost !== cost.memoryCost ||
          parsed.timeCost !== cost.timeCost ||
          parsed.parallelism !== cost.parallelism ||
          parsed.outputLen !== 32
        );
      } catch {
        return true;
      }
    },
  };
}
