// Fake Marlin controllers on socat pseudo-terminal pairs for a spec: each call makes one (a fresh
// port, as a board that comes back on another adapter would), and `dispose` closes them all.

import type { FakeMarlinOptions } from '../../server/machine/testing/fake-marlin.ts';
import { attachFakeMarlin, type FakeMarlinOnPort } from '../../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../../server/machine/testing/pty-pair.ts';

export class FakeControllers {
  readonly #pairs: PtyPair[] = [];
  readonly #fakes: FakeMarlinOnPort[] = [];

  async add(options: Omit<FakeMarlinOptions, 'send'>): Promise<{ pair: PtyPair; marlin: FakeMarlinOnPort }> {
    const pair = await createPtyPair();
    this.#pairs.push(pair);
    const marlin = await attachFakeMarlin(pair.far, options);
    this.#fakes.push(marlin);
    return { pair, marlin };
  }

  async dispose(): Promise<void> {
    for (const marlin of this.#fakes.splice(0)) await marlin.close();
    for (const pair of this.#pairs.splice(0)) await pair.dispose();
  }
}
