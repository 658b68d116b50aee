// Time for tests: a clock the test moves instead of sleeping.

/** A mutable clock for `dashboardApi.clock`: tests move time instead of sleeping. */
export function testClock(start = Date.parse('2030-01-01T00:00:00.000Z')) {
  let now = start;
  const clock = () => now;
  return Object.assign(clock, {
    advance(ms: number) {
      now += ms;
    },
  });
}
