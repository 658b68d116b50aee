import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from './tokens.ts';

export const API_ISSUER = 'towpath-api';

export interface SessionClaims {
  userId: string;
  sessionVersion: number;
}

/**
 * User sessions (§5.2): HS256 JWTs under JWT_SECRET. The claims only say who and which session
 * version; role and email are read from the user row on every request.
 */
export class SessionTokens {
  // Imported once: handing jose raw bytes makes it import a WebCrypto key on every verification.
  readonly #key: Promise<CryptoKey>;
  readonly #lifetimeSeconds: number;
  readonly #clock: Clock;

  constructor(secret: string, lifetimeSeconds: number, clock: Clock) {
    this.#key = crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    this.#lifetimeSeconds = lifetimeSeconds;
    this.#clock = clock;
  }

  async sign(user: { id: string; sessionVersion: number; role: string }): Promise<string> {
    const iat = Math.floor(this.#clock() / 1000);
    return new SignJWT({ sv: user.sessionVersion, role: user.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(API_ISSUER)
      .setAudience(API_ISSUER)
      .setSubject(user.id)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.#lifetimeSeconds)
      .sign(await this.#key);
  }

  /** The claims of a valid token, or null for anything else (never throws). */
  async verify(token: string): Promise<SessionClaims | null> {
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
      return { userId: sub, sessionVersion: sv };
    } catch {
      // Bad signature, wrong algorithm (incl. `none`), issuer, audience or expiry: all simply rejected.
      return null;
    }
  }
}
