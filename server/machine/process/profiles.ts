// Machine profiles in the machine database: created, replaced and deleted over the machine door.
// The fields are one JSON document validated by the contract's schema on the way in; the name is
// a column of its own so two profiles cannot share it (case-insensitively).
import {
  type MachineProfile,
  type ProfileFields,
  type ProfileInput,
  profileInput,
} from '../../../engine/machine/profile.ts';
import { HttpError } from '../../http/http-error.ts';
import type { MachineDatabase } from './machine-db.ts';

interface ProfileRow {
  id: number;
  name: string;
  fields: string;
}

export class ProfileStore {
  readonly #db: MachineDatabase;
  readonly #now: () => Date;

  constructor(db: MachineDatabase, now: () => Date = () => new Date()) {
    this.#db = db;
    this.#now = now;
  }

  list(): MachineProfile[] {
    const rows = this.#db
      .prepare('SELECT id, name, fields FROM profiles ORDER BY name, id')
      .all() as ProfileRow[];
    return rows.map(toProfile);
  }

  /** The profile, or a 404 naming the id. */
  get(id: number): MachineProfile {
    const row = this.#db.prepare('SELECT id, name, fields FROM profiles WHERE id = ?').get(id) as
      | ProfileRow
      | undefined;
    if (!row) throw new HttpError(404, `No machine profile with id ${id}`);
    return toProfile(row);
  }

  /** Validated input (the contract's schema, defaults applied) becomes a new profile. */
  create(input: ProfileInput): MachineProfile {
    const fields = profileInput.parse(input);
    return this.#unique(fields.name, () => {
      const { lastInsertRowid } = this.#db
        .prepare('INSERT INTO profiles (name, fields, updated_at) VALUES (?, ?, ?)')
        .run(fields.name, JSON.stringify(fields), this.#now().toISOString());
      return { id: Number(lastInsertRowid), ...fields };
    });
  }

  /** Replaces every field of a profile; 404 when it does not exist. */
  replace(id: number, input: ProfileInput): MachineProfile {
    const fields = profileInput.parse(input);
    this.get(id);
    return this.#unique(fields.name, () => {
      this.#db
        .prepare('UPDATE profiles SET name = ?, fields = ?, updated_at = ? WHERE id = ?')
        .run(fields.name, JSON.stringify(fields), this.#now().toISOString(), id);
      return { id, ...fields };
    });
  }

  delete(id: number): void {
    const { changes } = this.#db.prepare('DELETE FROM profiles WHERE id = ?').run(id);
    if (changes === 0) throw new HttpError(404, `No machine profile with id ${id}`);
  }

  #unique<T>(name: string, write: () => T): T {
    try {
      return write();
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
        throw new HttpError(409, `A machine profile named '${name}' already exists`);
      throw error;
    }
  }
}

function toProfile(row: ProfileRow): MachineProfile {
  // Stored fields were validated when written; parsing again fills defaults a later Towpath added.
  const fields: ProfileFields = profileInput.parse(JSON.parse(row.fields));
  return { id: row.id, ...fields, name: row.name };
}
