// The recent files list of File → Open Recent: newest first, at most ten, kept in the data dir so
// the desktop app finds it again after a restart (and the OS's own recent list gets each file too).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { OpenFileKind, RecentFile } from './preload-api.ts';

export const RECENT_FILES = 'recent-files.json';
export const RECENT_LIMIT = 10;

function isRecentFile(value: unknown): value is RecentFile {
  const entry = value as Partial<RecentFile> | null;
  return (
    typeof entry?.path === 'string' &&
    isAbsolute(entry.path) &&
    (entry.kind === 'wind' || entry.kind === 'gcode')
  );
}

export class RecentFiles {
  readonly #file: string;
  #entries: RecentFile[];

  constructor(dataDir: string) {
    this.#file = join(dataDir, RECENT_FILES);
    this.#entries = this.#read();
  }

  list(): RecentFile[] {
    return [...this.#entries];
  }

  add(kind: OpenFileKind, path: string): RecentFile[] {
    this.#entries = [{ kind, path }, ...this.#entries.filter((entry) => entry.path !== path)].slice(
      0,
      RECENT_LIMIT,
    );
    this.#write();
    return this.list();
  }

  remove(path: string): RecentFile[] {
    this.#entries = this.#entries.filter((entry) => entry.path !== path);
    this.#write();
    return this.list();
  }

  clear(): RecentFile[] {
    this.#entries = [];
    this.#write();
    return [];
  }

  /** A damaged or foreign file means an empty list, never a failed start. */
  #read(): RecentFile[] {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.#file, 'utf8'));
      return Array.isArray(parsed) ? parsed.filter(isRecentFile).slice(0, RECENT_LIMIT) : [];
    } catch {
      return [];
    }
  }

  #write() {
    const temporary = `${this.#file}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(this.#entries, null, 2)}\n`, { mode: 0o600 });
      renameSync(temporary, this.#file);
    } catch {
      // A read-only data dir loses the list, not the app.
    }
  }
}
