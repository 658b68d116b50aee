// The at-rest form of a credential secret (§10.1): AES-256-GCM under CREDENTIAL_ENCRYPTION_KEY, a
// fresh 12-byte IV per write, the profile id as additional data (so an envelope copied onto another
// profile does not open), and the key's id so a profile sealed under another key is recognised
// instead of failing as corrupt.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { decodeBase64 } from '../config/secrets.ts';

export interface SecretEnvelope {
  v: 1;
  alg: 'aes-256-gcm';
  keyId: string;
  iv: string;
  ct: string;
  tag: string;
}

/** The envelope was sealed under another key: it is reported, never decrypted. */
export class ForeignKeyEnvelope extends Error {
  override name = 'ForeignKeyEnvelope';
}

export class SecretSealer {
  readonly #key: Buffer;
  readonly keyId: string;

  /** `encodedKey`: CREDENTIAL_ENCRYPTION_KEY, base64 or base64url of exactly 32 bytes. */
  constructor(encodedKey: string) {
    this.#key = decodeBase64(encodedKey);
    if (this.#key.length !== 32) throw new Error('CREDENTIAL_ENCRYPTION_KEY must be 32 bytes');
    this.keyId = createHash('sha256').update(this.#key).digest('hex').slice(0, 16);
  }

  seal(profileId: string, secret: Record<string, string>): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(profileId, 'utf8'));
    const ct = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
    const envelope: SecretEnvelope = {
      v: 1,
      alg: 'aes-256-gcm',
      keyId: this.keyId,
      iv: iv.toString('base64url'),
      ct: ct.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
    };
    return JSON.stringify(envelope);
  }

  /** Whether `stored` was sealed under this key (checked without decrypting). */
  sealedHere(stored: string): boolean {
    try {
      return (JSON.parse(stored) as Partial<SecretEnvelope>).keyId === this.keyId;
    } catch {
      return false;
    }
  }

  /** Throws `ForeignKeyEnvelope` for another key's envelope; any tampering fails authentication. */
  open(profileId: string, stored: string): Record<string, string> {
    const envelope = JSON.parse(stored) as SecretEnvelope;
    if (envelope.v !== 1 || envelope.alg !== 'aes-256-gcm') throw new Error('unknown envelope format');
    if (envelope.keyId !== this.keyId) throw new ForeignKeyEnvelope(`sealed under key ${envelope.keyId}`);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(envelope.iv, 'base64url'));
    decipher.setAAD(Buffer.from(profileId, 'utf8'));
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(envelope.ct, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as Record<string, string>;
  }
}
