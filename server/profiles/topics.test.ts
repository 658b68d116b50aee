// The MQTT filter rules of §10.2: examples from the spec, and a property test against a reference
// written here independently (a regular expression per filter) over random filters and topics.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterCovers, isTopicFilter, topicAllowed } from './topics.ts';

/** Reference: the filter as an anchored regular expression over the whole topic string. */
function referenceCovers(filter: string, topic: string): boolean {
  const levels = filter.split('/');
  let pattern = '';
  levels.forEach((level, index) => {
    const separator = index === 0 ? '' : '/';
    if (level === '#') {
      // The rest, possibly nothing: "a/#" covers "a" too; "#" alone covers every topic.
      pattern += index === 0 ? '.*' : '(?:/.*)?';
    } else if (level === '+') {
      // One level that is not itself "#".
      pattern += `${separator}(?!#(?:/|$))[^/]*`;
    } else {
      pattern += separator + level.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  });
  return new RegExp(`^${pattern}$`, 's').test(topic);
}

const level = fc.constantFrom('a', 'b', 'line-3', '', '+', '#');
const filterArb = fc
  .array(level, { minLength: 1, maxLength: 5 })
  .map((levels) => levels.join('/'))
  .filter(isTopicFilter);

describe('isTopicFilter', () => {
  it.each(['a', 'a/b', '+', '#', 'a/+/c', 'a/#', '+/#', 'a//b', 'x'.repeat(256)])('accepts %s', (filter) => {
    expect(isTopicFilter(filter)).toBe(true);
  });
  it.each(['', 'a#', 'a/#/b', '#/a', 'a+', 'a/b+/c', 'a\u0000b', 'x'.repeat(257)])('refuses %j', (filter) => {
    expect(isTopicFilter(filter)).toBe(false);
  });
});

describe('filterCovers', () => {
  it.each([
    ['a/#', 'a', true],
    ['a/#', 'a/b/c', true],
    ['#', '#', true],
    ['+', '+', true],
    ['+', '#', false],
    ['a/+', 'a/#', false],
    ['a/b', 'a/+', false],
    ['a/+', 'a/b/c', false],
    ['a/b', 'a', false],
    ['a', 'a/b', false],
    ['+/+', 'x/y', true],
  ])('%s covers %s: %s', (filter, topic, expected) => {
    expect(filterCovers(filter, topic)).toBe(expected);
  });

  it('agrees with the reference for random filters and topics', () => {
    fc.assert(
      fc.property(filterArb, filterArb, (filter, topic) => {
        expect(filterCovers(filter, topic)).toBe(referenceCovers(filter, topic));
      }),
      { numRuns: 2000 },
    );
  });

  it('allows everything with an empty allowlist, otherwise what some filter covers', () => {
    fc.assert(
      fc.property(fc.array(filterArb, { maxLength: 4 }), filterArb, (allowlist, topic) => {
        const expected = allowlist.length === 0 || allowlist.some((filter) => referenceCovers(filter, topic));
        expect(topicAllowed(allowlist, topic)).toBe(expected);
      }),
    );
  });
});
