// A real `towpath serve` for the account and dashboard specs: its own data dir, a bootstrap admin.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { type Running, startNode } from '../../server/testing/process.ts';

export const ADMIN_EMAIL = 'admin@towpath.test';
export const PASSWORD = 'Str0ng-password!';

export interface Core {
  url: string;
  stop(): Promise<void>;
}

export async function startCore(env: Record<string, string> = {}): Promise<Core> {
  const dir = await mkdtemp(join(tmpdir(), 'towpath-e2e-dash-'));
  const core: Running = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    TOWPATH_DATA_DIR: join(dir, 'data'),
    HOME: dir,
    XDG_CONFIG_HOME: dir,
    CREATE_ADMIN: 'true',
    ADMIN_EMAIL,
    ADMIN_PASSWORD: PASSWORD,
    ...env,
  });
  const [, url] = await core.waitFor(/Open (http:\/\/[^/]+)\//);
  return {
    url: url as string,
    async stop() {
      core.child.kill('SIGTERM');
      expect((await core.finished).code).toBe(0);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Signs in through the sign-in screen and waits for the dashboards list. */
export async function signIn(page: Page, url: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboards' })).toBeVisible();
}
