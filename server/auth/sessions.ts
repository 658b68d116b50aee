import { jwtVerify } from 'jose';
import type { Now } from '../clock.ts';
import { Hs256Signer } from './hs256.ts';
import { VerifiedTokens } from './verified-tokens.ts';

export const API_ISSUER = 'towpath-api';

export interface SessionClaims {
  userId: string;
  sessionVersion: number;
}

/**
 * An HS256 key imported once: handing jose raw bytes makes it import a WebCrypto key on every
 * signature and verification, which costs more than the HMAC itself.
 */
export function importHmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
}

/**
 * User sessions (§5.2): HS256 JWTs under JWT_SECRET. The claims only say who and which session
 * version; role and email are read from the user row on every request.
 */
export class SessionTokens {
  readonly #key: Promise<CryptoKey>;
  readonly #signer: Hs256Signer;
  readonly #lifetimeSeconds: number;
  // A browser's repeated requests skip the HMAC. Whether the session is still valid (user active,
  // same session version) is checked against the database on every request regardless.
  readonly #verified = new VerifiedTokens<SessionClaims>();
  readonly #clock: Now;

  constructor(secret: string, lifetimeSeconds: number, clock: Now) {
    this.#key = importHmacKey(secret);
    this.#signer = new Hs256Signer(secret);
    this.#lifetimeSeconds = lifetimeSeconds;
    this.#clock = clock;
  }

  async sign(user: { id: string; sessionVersion: number; role: string }): Promise<string> {
    const iat = Math.floor(this.#clock() / 1000);
    return this.#signer.sign({
      sv: user.sessionVersion,
      role: user.role,
      iss: API_ISSUER,
      aud: API_ISSUER,
      sub: user.id,
      iat,
      exp: iat + this.#lifetimeSeconds,
    });
  }

  /** The claims of a valid token, or null for anything else (never throws). */
  async verify(token: string): Promise<SessionClaims | null> {
    const now = Math.floor(this.#clock() / 1000);
    const known = this.#verified.get(token, now);
    if (known) return known;
    try {
      const { payload } = await jwtVerify(token, await this.#key, {
        algorithms: ['HS256'],
        issuer: API_ISSUER,
        audience: API_ISSUER,
        currentDate: new Date(this.#clock()),
        clockTolerance: 0,
        requiredClaims: ['exp', 'sub'],
      });
      const { sub, sv } = payload;
      if (typeof sub !== 'string' || typeof sv !== 'number' || !Number.isInteger(sv) || sv < 0) return null;
      const claims = { userId: sub, sessionVersion: sv };
      this.#verified.remember(token, payload, claims);
      return claims;
    } catch {
      // Bad signature, wrong algorithm (incl. `none`), issuer, audience or expiry: all simply rejected.
      return null;
    }
  }
}
