// The Source tab's checker: the worker gets one text at a time, only the latest of those waiting,
// and a worker that fails hands its work to the calling thread.
import { describe, expect, it } from 'vitest';
import { windDiagnostics } from '#engine/wind/diagnostics.ts';
import { type CheckPort, diagnosticsChecker } from './diagnostics-checker.ts';
import type { CheckAnswer, CheckRequest } from './diagnostics-protocol.ts';

/** A worker port whose answers the test releases, computed by the real engine. */
function manualPort() {
  const posted: CheckRequest[] = [];
  let answer: (a: CheckAnswer) => void = () => {};
  let fail: () => void = () => {};
  let closed = false;
  const port: CheckPort = {
    post: (request) => posted.push(request),
    onAnswer: (listener) => {
      answer = listener;
    },
    onFailure: (listener) => {
      fail = listener;
    },
    close: () => {
      closed = true;
    },
  };
  const release = () => {
    const request = posted.at(-1);
    if (request) answer({ id: request.id, diagnostics: windDiagnostics(request.text) });
  };
  return { port, posted, release, fail: () => fail(), closed: () => closed };
}

const A = '{"a": 1,}';
const B = '{"b" 2}';
const C = '[1 2]';

describe('diagnosticsChecker', () => {
  it('sends one text at a time, and of those waiting only the latest', async () => {
    const { port, posted, release } = manualPort();
    const checker = diagnosticsChecker(port);
    const first = checker.check(A);
    const second = checker.check(B);
    const third = checker.check(C);
    expect(posted.map((r) => r.text)).toEqual([A]);
    release();
    expect(await first).toEqual(windDiagnostics(A));
    expect(posted.map((r) => r.text)).toEqual([A, C]);
    release();
    // The superseded check gets the latest answer: its own text is out of date.
    expect(await second).toEqual(windDiagnostics(C));
    expect(await third).toEqual(windDiagnostics(C));
  });

  it('checks on the calling thread once the worker fails, starting with the check it had', async () => {
    const { port, posted, fail, closed } = manualPort();
    const checker = diagnosticsChecker(port);
    const first = checker.check(A);
    fail();
    expect(closed()).toBe(true);
    expect(await first).toEqual(windDiagnostics(A));
    expect(await checker.check(B)).toEqual(windDiagnostics(B));
    expect(posted).toHaveLength(1);
  });

  it('checks on the calling thread without a worker, and disposing answers what waits with nothing', async () => {
    expect(await diagnosticsChecker(null).check(C)).toEqual(windDiagnostics(C));
    const { port, closed } = manualPort();
    const checker = diagnosticsChecker(port);
    const running = checker.check(A);
    const waiting = checker.check(B);
    checker.dispose();
    expect(closed()).toBe(true);
    expect(await running).toEqual([]);
    expect(await waiting).toEqual([]);
  });
});
