// The in-process change bus of §9: after a commit, services publish what changed; subscriptions (and
// later the realtime gateway) re-read and re-check for each of their own subscribers.
import type { RevocationReason } from '../db/repositories/dashboards.ts';

export type Change =
  | { kind: 'dashboard'; dashboardId: string; change: string; reason?: RevocationReason; deleted?: boolean }
  /** Role, active state, password or deletion: sessions of that user may have ended. */
  | { kind: 'user'; userId: string; change: 'role' | 'active' | 'password' | 'deleted' }
  | {
      kind: 'profile';
      profileId: string;
      profileType: 'credential' | 'broker';
      change: 'updated' | 'deleted';
    };

type Listener = (change: Change) => void;

export class ChangeBus {
  readonly #listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  publish(change: Change): void {
    for (const listener of [...this.#listeners]) listener(change);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}
