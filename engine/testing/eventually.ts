// Waiting, in tests and benchmarks, for a state that no event announces (a connection count, a
// process gone, a file on disk): look again every few milliseconds until it holds. Where an event
// does announce it (a line received, a message), wait on the event instead. A fixed sleep belongs
// only where a test checks that nothing happens within a window, such as no line written to a
// real pseudo-terminal while a job is paused.

/**
 * Resolves once `condition` holds, looking every `intervalMs`; rejects once `timeoutMs` has passed
 * without it, so a wait that cannot end fails with its own message rather than the test's timeout.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise<void>((resolve) => setTimeout(() => resolve(), intervalMs));
  }
}
