import type { Argon2Cost } from '../auth/passwords.ts';

/**
 * Argon2id far below the spec's cost: tests hash many passwords on a shared 2-core machine. The
 * spec's cost itself is covered by server/auth/passwords.test.ts.
 */
export const TEST_ARGON2_COST: Argon2Cost = { memoryCost: 1024, timeCost: 1, parallelism: 1 };
