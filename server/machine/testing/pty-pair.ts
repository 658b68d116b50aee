// Test support: a real pseudo-terminal serial pair made by socat. The host opens `near`, a fake
// controller opens `far`; killing socat makes both ports vanish as an unplugged adapter would.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PtyPair {
  near: string;
  far: string;
  socat: ChildProcess;
  /** Kills socat (the ports vanish); resolves when it has exited. */
  vanish(): Promise<void>;
  /** Kills socat if it still runs and removes the folder. */
  dispose(): Promise<void>;
}

export const SOCAT = '/usr/bin/socat';

export async function createPtyPair(timeoutMs = 5000): Promise<PtyPair> {
  const dir = await mkdtemp(join(tmpdir(), 'towpath-pty-'));
  const near = join(dir, 'host');
  const far = join(dir, 'controller');
  const socat = spawn(SOCAT, ['-d', '-d', `pty,raw,echo=0,link=${near}`, `pty,raw,echo=0,link=${far}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  socat.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => {
    if (socat.exitCode !== null || socat.signalCode !== null) resolve();
    else socat.once('exit', () => resolve());
  });
  const vanish = async () => {
    if (socat.exitCode === null && socat.signalCode === null) socat.kill('SIGKILL');
    await exited;
  };
  const dispose = async () => {
    await vanish();
    await rm(dir, { recursive: true, force: true });
  };

  const started = Date.now();
  while (!(existsSync(near) && existsSync(far))) {
    if (socat.exitCode !== null || Date.now() - started > timeoutMs) {
      await dispose();
      throw new Error(`socat did not create the pseudo-terminal pair within ${timeoutMs} ms: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { near, far, socat, vanish, dispose };
}
