// The secrets' names and the rules a configured one must meet (dashboard spec §18). Loading them,
// and generating the missing ones into the data dir, is server/secrets.ts.
import { ConfigError } from './env.ts';

/** The five secrets of dashboard spec §18: from the environment, else `<data dir>/secrets.json`. */
export const SECRET_NAMES = [
  'JWT_SECRET',
  'JWT_GATEWAY_SECRET',
  'TOKEN_PEPPER',
  'CREDENTIAL_ENCRYPTION_KEY',
  'GATEWAY_SERVICE_TOKEN',
] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

/** Rules every configured secret must meet; also applied to values read from secrets.json. */
export function checkSecret(name: SecretName, secret: string): void {
  if (name === 'CREDENTIAL_ENCRYPTION_KEY') {
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(secret) || decodeBase64(secret).length !== 32) {
      throw new ConfigError('CREDENTIAL_ENCRYPTION_KEY must be 32 bytes encoded as base64');
    }
    return;
  }
  const bytes = Buffer.byteLength(secret, 'utf8');
  if (bytes < 32) throw new ConfigError(`${name} must be at least 32 bytes (got ${bytes})`);
}

/** Accepts standard base64 and base64url, padded or not. */
export function decodeBase64(text: string): Buffer {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}
