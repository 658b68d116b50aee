// Our HS256 signer against jose's verifier: same secret verifies, any other secret or a changed
// payload does not, and the header is exactly RFC 7519's.
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { Hs256Signer } from './hs256.ts';

const key = (secret: string) => new TextEncoder().encode(secret);

describe('Hs256Signer', () => {
  const secret = 'a-gateway-secret-of-some-length-0123456789';
  const claims = { sub: 'u1', iat: 1_700_000_000, exp: 4_000_000_000, note: 'ünïcødé ✓' };
  const token = new Hs256Signer(secret).sign(claims);

  it('signs a token jose verifies with the same secret, claims intact', async () => {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'] });
    expect(payload).toEqual(claims);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
  });

  it('is refused under another secret and after any change to the payload', async () => {
    await expect(jwtVerify(token, key(`${secret}x`))).rejects.toThrow();
    const [header, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url');
    await expect(jwtVerify(`${header}.${forged}.${signature}`, key(secret))).rejects.toThrow();
  });
});
