// Test support: comparing a plan's or simulation's JSON body with the one expected, numbers within
// a relative tolerance (spec/winding.md §8: 1e-9), everything else exactly and keys in the same
// order. It lists what differs rather than asserting, so Vitest and Playwright tests share it.

/** Where `actual` differs from `expected`, one line per difference (none: they agree). */
export function closeMismatches(
  actual: unknown,
  expected: unknown,
  relative = 1e-9,
  where = 'body',
): string[] {
  if (typeof expected === 'number' && !Number.isInteger(expected)) {
    if (typeof actual !== 'number') return [`${where}: ${JSON.stringify(actual)} is not a number`];
    const off = Math.abs(actual - expected);
    return off <= Math.abs(expected) * relative
      ? []
      : [`${where}: ${actual} is not ${expected} (off by ${off})`];
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null)
      return [`${where}: ${JSON.stringify(actual)} is not an object`];
    const keys = Object.keys(expected);
    const got = Object.keys(actual);
    if (JSON.stringify(got) !== JSON.stringify(keys))
      return [`${where}: keys ${got.join(',')} are not ${keys.join(',')}`];
    return keys.flatMap((key) =>
      closeMismatches(
        (actual as Record<string, unknown>)[key],
        (expected as Record<string, unknown>)[key],
        relative,
        `${where}.${key}`,
      ),
    );
  }
  return Object.is(actual, expected)
    ? []
    : [`${where}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`];
}
