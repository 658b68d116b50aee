/** Verified tokens remembered at most (oldest forgotten first). */
const DEFAULT_SIZE = 1024;

/**
 * What a JWT's signature, algorithm, issuer and audience proved, remembered by the token string,
 * so a token presented again skips the HMAC (WebCrypto's per-call cost exceeds the rest of a
 * request). Only expiry depends on the time and is checked on every lookup, as jose does (expired
 * once `exp <= now`). Whatever the token grants is still checked against the database each time.
 */
export class VerifiedTokens<Claims> {
  readonly #entries = new Map<string, { exp: number; claims: Claims }>();
  readonly #size: number;

  constructor(size = DEFAULT_SIZE) {
    this.#size = size;
  }

  /** The remembered claims of an unexpired token; undefined when unknown or expired. */
  get(token: string, nowSeconds: number): Claims | undefined {
    const known = this.#entries.get(token);
    if (!known) return undefined;
    if (known.exp > nowSeconds) return known.claims;
    this.#entries.delete(token);
    return undefined;
  }

  /** Call only after a full verification; tokens without `exp` or with `nbf` are not kept. */
  remember(token: string, payload: { exp?: unknown; nbf?: unknown }, claims: Claims): void {
    if (typeof payload.exp !== 'number' || payload.nbf !== undefined) return;
    if (this.#entries.size >= this.#size) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(token, { exp: payload.exp, claims });
  }
}
