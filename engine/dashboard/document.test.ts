import { describe, expect, it } from 'vitest';
import { isTopicFilter } from './document.ts';

describe('MQTT topic filters (§3.2)', () => {
  it('takes + as a whole level and # only as the whole last level', () => {
    expect(['a/b', 'a/+/c', 'a/#', '#', '+'].every(isTopicFilter)).toBe(true);
    expect(['', 'a/#/b', 'a+/b', 'a/b#', 'x\u0000'].some(isTopicFilter)).toBe(false);
  });

  it('counts the 256-character limit in code points', () => {
    expect(isTopicFilter('😀'.repeat(256))).toBe(true);
    expect(isTopicFilter('x'.repeat(257))).toBe(false);
  });
});
