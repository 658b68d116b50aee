import { describe, expect, it } from 'vitest';
import { eventually } from './eventually.ts';

describe('eventually', () => {
  it('resolves once the condition holds, sync or async, looking again between tries', async () => {
    let looks = 0;
    await eventually(() => ++looks === 3, 1000, 1);
    expect(looks).toBe(3);
    let asyncLooks = 0;
    await eventually(async () => ++asyncLooks >= 2, 1000, 1);
    expect(asyncLooks).toBe(2);
  });

  it('fails with its own message once the time is up', async () => {
    await expect(eventually(() => false, 30, 5)).rejects.toThrow('condition not met within 30 ms');
  });
});
