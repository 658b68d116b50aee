// The hand-mapped users.byId must give exactly what drizzle's own mapping of the row gives, for every
// column (a column added to the schema and not to the statement fails here).
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../testing/workstation.ts';
import { openDatabase } from '../database.ts';
import { users } from '../schema.ts';
import { Store } from '../store.ts';

describe('UsersRepository.byId', () => {
  it('maps a row as drizzle does', async () => {
    const database = openDatabase(await makeTempDir());
    try {
      const store = new Store(database);
      for (const [id, active, role] of [
        ['u-active', true, 'editor'],
        ['u-inactive', false, 'admin'],
      ] as const) {
        database.db
          .insert(users)
          .values({
            id,
            email: `${id}@towpath.test`,
            passwordHash: 'hash',
            role,
            active,
            sessionVersion: 3,
            registrationDate: '2026-11-24T00:00:00.000Z',
            lastLogin: '2026-11-24T01:00:00.000Z',
          })
          .run();
        const viaDrizzle = database.db.select().from(users).where(eq(users.id, id)).get();
        expect(store.users.byId(id)).toStrictEqual(viaDrizzle);
      }
      expect(store.users.byId('nobody')).toBeUndefined();
    } finally {
      database.close();
    }
  });
});
