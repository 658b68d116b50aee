// The folders the winding door has written plans to, kept in the data dir, so that start-up can
// remove temporary files a crash (SIGKILL, power loss) left in them. Scanning every allowed root
// instead would mean walking the user's whole home folder.
import { lstat, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { PathPolicy } from '../http/paths.ts';
import type { Logger } from '../log.ts';
import { processExists } from '../process-exists.ts';
import { temporaryOwner, writeFileAtomically } from './atomic-write.ts';

export const OUTPUT_FOLDERS_FILE = 'output-folders.json';

/** The record stays small: the folders written to most recently. */
const MAX_FOLDERS = 200;

export class OutputFolders {
  readonly #file: string;
  readonly #logger: Logger;
  #folders: string[];
  #saving: Promise<void> = Promise.resolve();

  private constructor(file: string, folders: string[], logger: Logger) {
    this.#file = file;
    this.#folders = folders;
    this.#logger = logger;
  }

  /** Reads the record; a missing or damaged one starts empty (it is only a cleaning aid). */
  static async open(dataDir: string, logger: Logger): Promise<OutputFolders> {
    const file = join(dataDir, OUTPUT_FOLDERS_FILE);
    let folders: string[] = [];
    try {
      const parsed = JSON.parse(await readFile(file, 'utf8')) as { folders?: unknown };
      if (Array.isArray(parsed.folders))
        folders = parsed.folders.filter((folder): folder is string => typeof folder === 'string');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        logger.warn({ err: error, file }, 'ignoring an unreadable record of output folders');
    }
    return new OutputFolders(file, folders.slice(0, MAX_FOLDERS), logger);
  }

  get folders(): readonly string[] {
    return this.#folders;
  }

  /** Adds a folder before the first plan is written into it; known folders cost nothing. */
  note(folder: string): Promise<void> {
    if (this.#folders.includes(folder)) return this.#saving;
    this.#folders = [folder, ...this.#folders].slice(0, MAX_FOLDERS);
    const text = `${JSON.stringify({ folders: this.#folders }, null, 2)}\n`;
    this.#saving = this.#saving
      .then(() => writeFileAtomically(this.#file, (write) => write(Buffer.from(text))))
      .catch((error: unknown) =>
        this.#logger.warn({ err: error }, 'could not save the record of output folders'),
      );
    return this.#saving;
  }

  /**
   * Removes temporary plan files whose writing process is gone, in the recorded folders that lie
   * inside the allowed roots. Files of live processes (a `towpath plan` running now) stay.
   */
  async removeStaleTemporaries(policy: PathPolicy): Promise<number> {
    let removed = 0;
    for (const folder of this.#folders) {
      if (!policy.allows(folder)) continue;
      const names = await readdir(folder).catch(() => [] as string[]);
      for (const name of names) {
        const owner = temporaryOwner(name);
        if (owner === undefined || owner === process.pid || processExists(owner)) continue;
        const path = join(folder, name);
        try {
          if (!(await lstat(path)).isFile()) continue;
          await unlink(path);
          removed += 1;
        } catch {
          // Gone already, or not ours to remove.
        }
      }
    }
    if (removed > 0) this.#logger.info({ removed }, 'removed temporary plan files left by a crash');
    return removed;
  }
}
