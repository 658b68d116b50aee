// Test support: the machine door's routes over real HTTP on loopback, a machine controller on a
// real socat pseudo-terminal pair with the fake Marlin (following its axes) on the far end, and a
// machine database in a temporary data dir — the parts the profile and job-history tests share.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createHttpApp } from '../../http/app.ts';
import { MachineController } from '../process/controller.ts';
import { JobHistory } from '../process/job-history.ts';
import { type MachineDatabase, openMachineDatabase } from '../process/machine-db.ts';
import { ProfileStore } from '../process/profiles.ts';
import { machineRoutes } from '../process/routes.ts';
import type { FakeMarlinOptions } from './fake-marlin.ts';
import { attachFakeMarlin } from './fake-marlin-port.ts';
import { FakeMotion, FIVE_AXES } from './fake-motion.ts';
import { createPtyPair } from './pty-pair.ts';

export const BENCH_TIMINGS = {
  bootIdleMs: 50,
  syncTimeoutMs: 1000,
  identifyIdleMs: 1000,
  idleTimeoutMs: 2000,
};

export interface DoorAnswer {
  status: number;
  body: Record<string, unknown>;
  text: string;
  headers: Headers;
}

/** Starts the parts; every one is closed by the returned `dispose`, in reverse order. */
export async function startDoorBench(fakeOptions: Omit<FakeMarlinOptions, 'send'> = {}) {
  const cleanups: (() => Promise<unknown>)[] = [];
  const dispose = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  };
  try {
    const dataDir = await mkdtemp(join(tmpdir(), 'towpath-machine-db-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const pair = await createPtyPair();
    cleanups.push(() => pair.dispose());
    const motion = new FakeMotion(FIVE_AXES);
    const onPort = await attachFakeMarlin(pair.far, { react: motion.react, ...fakeOptions });
    cleanups.push(() => onPort.close());
    const database: MachineDatabase = openMachineDatabase(dataDir);
    cleanups.push(async () => database.close());
    const profiles = new ProfileStore(database);
    const history = new JobHistory(database);
    const machine = new MachineController({ timings: BENCH_TIMINGS, history });
    cleanups.push(() => machine.close());
    const app = createHttpApp(pino({ level: 'silent' }), 'lan');
    await app.register(machineRoutes, {
      machine,
      allowRemote: () => false,
      allowedRoots: [],
      profiles,
      history,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => app.close());
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const call = async (method: string, path: string, body?: unknown): Promise<DoorAnswer> => {
      const response = await fetch(`${base}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : {
              headers: { 'content-type': 'application/json' },
              body: typeof body === 'string' ? body : JSON.stringify(body),
            }),
      });
      const text = await response.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        // CSV and other text answers are read from `text`.
      }
      return { status: response.status, body: parsed, text, headers: response.headers };
    };
    return { dataDir, pair, fake: onPort.fake, motion, machine, database, profiles, history, call, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

export type DoorBench = Awaited<ReturnType<typeof startDoorBench>>;
