// Small input-hardening rules against a real workstation: emails with control characters
// are invalid, and the X-Forwarded-For mismatch warning is logged at most once a minute.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { isValidEmail } from '../auth/email.ts';
import { testClock } from '../testing/clock.ts';
import { errorCode, gql } from '../testing/graphql.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

let ws: TestWorkstation | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

const AUTH = 'mutation($e: String!) { authUser(email: $e, password: "Whatever-Pass-1") { token } }';

describe('emails', () => {
  it('refuses addresses with C0 or C1 control characters as invalid', async () => {
    ws = await startTestWorkstation();
    for (const email of [
      'a\u0000b@towpath.test',
      'a\u001bb@towpath.test',
      'a\u007fb@towpath.test',
      'a\u0085b@towpath.test',
    ]) {
      expect(isValidEmail(email), JSON.stringify(email)).toBe(false);
      const answer = await gql(ws.urls.lan, AUTH, { variables: { e: email } });
      expect([errorCode(answer), answer.errors?.[0]?.message]).toEqual([
        'BAD_USER_INPUT',
        'Invalid email address',
      ]);
    }
    expect(isValidEmail('ops.lead@towpath.test')).toBe(true);
    expect(isValidEmail('müller@towpath.test')).toBe(true);
  });
});

describe('X-Forwarded-For mismatch warning', () => {
  it('is logged at most once a minute however many requests carry it', async () => {
    const lines: { msg: string; suppressed?: number }[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const clock = testClock();
    ws = await startTestWorkstation(
      { API_TRUST_PROXY_HOPS: '2' },
      { logger: pino({ level: 'warn' }, sink), dashboardApi: { clock } },
    );
    const url = ws.urls.lan;
    const warnings = () => lines.filter((line) => line.msg.startsWith('X-Forwarded-For does not match'));
    const send = () =>
      gql(url, AUTH, { variables: { e: 'nobody@towpath.test' }, headers: { 'x-forwarded-for': 'junk' } });
    for (let i = 0; i < 20; i++) await send();
    expect(warnings()).toHaveLength(1);
    clock.advance(59_000);
    await send();
    expect(warnings()).toHaveLength(1);
    clock.advance(1_000);
    await send();
    expect(warnings().map((w) => w.suppressed)).toEqual([undefined, 20]);
  });
});
