// Machine connect requests against a real workstation: a port path with a NUL and a baud
// rate off the list are refused with 400 before any port is opened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAUD_RATES } from '../../engine/machine/contract.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

let ws: TestWorkstation;
// No such device: a request that gets as far as opening the port fails with 502, one refused
// before that with 400.
const MISSING = '/dev/ttyUSB-towpath-test-missing';
beforeAll(async () => {
  ws = await startTestWorkstation();
});
afterAll(() => ws.dispose());

const connect = async (body: unknown) => {
  const response = await fetch(`${ws.urls.lan}/api/machine/connect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return [response.status, ((await response.json()) as { detail: string }).detail] as const;
};

describe('machine connect', () => {
  it('refuses a port path with a NUL', async () => {
    expect(await connect({ port: `${MISSING}\u0000../tty` })).toEqual([
      400,
      'Invalid request body: port: must not contain NUL characters',
    ]);
  });

  it('takes baud rates from the list only', async () => {
    for (const baudRate of [1e12, 2 ** 31, 0, -9600, 12345]) {
      expect(await connect({ port: MISSING, baudRate })).toEqual([
        400,
        `Invalid request body: baudRate: must be one of ${BAUD_RATES.join(', ')}`,
      ]);
    }
    const [status] = await connect({ port: MISSING, baudRate: 250000 });
    expect(status).toBe(502);
  });
});
