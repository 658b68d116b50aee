// One real core and one fake Marlin that follows its axes (and answers M114) on a socat pty pair,
// started before a spec's tests and stopped after them; the core must exit cleanly.
import { expect, test } from '@playwright/test';
import type { FakeMarlinOnPort } from '../../server/machine/testing/fake-marlin-port.ts';
import { FakeMotion, FIVE_AXES } from '../../server/machine/testing/fake-motion.ts';
import { type Core, startCore } from '../../server/testing/core.ts';
import { FakeControllers } from './fake-controllers.ts';

export interface MachineBench {
  readonly core: Core;
  /** The port the workstation connects to. */
  readonly port: string;
  readonly marlin: FakeMarlinOnPort;
  readonly motion: FakeMotion;
}

/**
 * Registers the spec's beforeAll and afterAll; the fields are there once beforeAll has run.
 * `ackDelayMs` slows the controller so a job is still running when a test acts during it.
 */
export function machineBench(ackDelayMs: number): MachineBench {
  const motion = new FakeMotion(FIVE_AXES);
  const controllers = new FakeControllers();
  let started: { core: Core; port: string; marlin: FakeMarlinOnPort } | undefined;
  const get = () => {
    if (!started) throw new Error('the machine bench is used before its beforeAll ran');
    return started;
  };
  test.beforeAll(async () => {
    const core = await startCore();
    const { pair, marlin } = await controllers.add({ ackDelayMs, react: motion.react });
    started = { core, port: pair.near, marlin };
  });
  test.afterAll(async () => {
    await controllers.dispose();
    if (started) expect(await started.core.stop()).toBe(0);
  });
  return {
    get core() {
      return get().core;
    },
    get port() {
      return get().port;
    },
    get marlin() {
      return get().marlin;
    },
    motion,
  };
}
