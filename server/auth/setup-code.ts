// The one-time setup code for the first admin (dashboard spec §6.1): a page
// open in a browser on the workstation reaches the LAN door from loopback too, so being local is
// not enough to create the first admin; knowing what the workstation printed or showed is.
import { randomInt, timingSafeEqual } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const SETUP_CODE_FILE = 'setup-code';
export const SETUP_CODE_REQUIRED = 'Setup code required to create the first admin';

/** Crockford base32: no I, L, O or U, so a code read aloud or off a screen is not mistyped. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LENGTH = 20;

/** 20 characters from the OS CSPRNG in groups of 4 joined by `-` (100 bits). */
export function newSetupCode(): string {
  const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return chars.match(/.{4}/g)?.join('-') ?? chars;
}

/** What a person typed, read the Crockford way: any case, dashes and spaces ignored, I/L = 1, O = 0. */
function canonical(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
}

function isWellFormed(code: string): boolean {
  const plain = canonical(code);
  return plain.length === LENGTH && [...plain].every((char) => ALPHABET.includes(char));
}

/**
 * The setup code while the user table is empty: kept in `<data dir>/setup-code` (0600) so a restart
 * shows the same one, gone once the first admin exists.
 */
export class SetupCode {
  readonly #file: string;
  #code: string | null = null;

  private constructor(dataDir: string) {
    this.#file = join(dataDir, SETUP_CODE_FILE);
  }

  /**
   * At start: with no users, the stored code (or a new one, stored); with users, none (and a stale
   * file is removed).
   */
  static async open(dataDir: string, hasUsers: boolean): Promise<SetupCode> {
    const setup = new SetupCode(dataDir);
    if (hasUsers) {
      await rm(setup.#file, { force: true });
      return setup;
    }
    const stored = await readFile(setup.#file, 'utf8').then(
      (text) => text.trim(),
      () => '',
    );
    setup.#code = isWellFormed(stored) ? stored : newSetupCode();
    if (setup.#code !== stored) await writeFile(setup.#file, `${setup.#code}\n`, { mode: 0o600 });
    return setup;
  }

  /** The code to show, or null once the first admin exists. */
  get current(): string | null {
    return this.#code;
  }

  /** Compares in constant time; false when there is no code any more. */
  matches(given: string | null | undefined): boolean {
    if (this.#code === null || typeof given !== 'string' || given.length > 64) return false;
    const expected = Buffer.from(canonical(this.#code));
    const actual = Buffer.from(canonical(given));
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  /** The first admin exists: the code is spent. */
  async consume(): Promise<void> {
    this.#code = null;
    // A file left behind (permissions changed under us) is removed at the next start.
    await rm(this.#file, { force: true }).catch(() => {});
  }
}
