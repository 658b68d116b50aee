import { describe, expect, it } from 'vitest';
import { hasWildcard, rowsOf, TopicValues } from './topic-values.ts';

describe('wildcard MQTT datasources (§3.2)', () => {
  it('knows a wildcard filter from a single topic', () => {
    expect(['a/+/state', 'a/#', '#', '+'].every(hasWildcard)).toBe(true);
    expect(['a/b/state', 'a+b/c', 'a/b#x'].some(hasWildcard)).toBe(false);
  });

  it('keeps the latest payload of every topic, and a zero-length one removes its topic', () => {
    const values = new TopicValues();
    values.apply('t/w02/state', { name: 'two', n: 1 });
    values.apply('t/w01/state', { name: 'one' });
    values.apply('t/w02/state', { name: 'two', n: 2 });
    expect(values.value()).toEqual({ 't/w01/state': { name: 'one' }, 't/w02/state': { name: 'two', n: 2 } });
    values.apply('t/w01/state', null, true);
    expect(values.value()).toEqual({ 't/w02/state': { name: 'two', n: 2 } });
    // Removing a topic never seen is harmless; a plain `null` payload is a value, not a removal.
    values.apply('t/w09/state', null, true);
    values.apply('t/w03/state', null);
    expect(values.value()).toEqual({ 't/w02/state': { name: 'two', n: 2 }, 't/w03/state': null });
  });

  it('drops the least recently updated topic beyond its limit', () => {
    const values = new TopicValues(3);
    for (const topic of ['a', 'b', 'c']) values.apply(topic, topic);
    values.apply('a', 'a2');
    values.apply('d', 'd');
    expect(Object.keys(values.value()).sort()).toEqual(['a', 'c', 'd']);
    expect(values.size).toBe(3);
  });

  it('hands out a new object on every read', () => {
    const values = new TopicValues();
    values.apply('a', 1);
    const first = values.value();
    values.apply('a', 2);
    expect(first).toEqual({ a: 1 });
    expect(values.value()).not.toBe(first);
  });
});

describe('rows of list widgets (§5.2)', () => {
  it('takes an array as it is and an object’s values sorted by key', () => {
    expect(rowsOf([3, 1, 2])).toEqual([3, 1, 2]);
    expect(rowsOf({ 'b/state': { n: 'b' }, 'a/state': { n: 'a' }, Z: { n: 'Z' } })).toEqual([
      { n: 'Z' },
      { n: 'a' },
      { n: 'b' },
    ]);
    expect(rowsOf({})).toEqual([]);
  });

  it('finds no rows in anything else', () => {
    for (const value of [null, undefined, 'text', 4, true]) expect(rowsOf(value)).toBeNull();
  });
});
