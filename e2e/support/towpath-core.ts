// A real core with a bootstrap admin for the account and dashboard specs, and signing in through
// the sign-in screen.
import { expect, type Page } from '@playwright/test';
import { ADMIN_EMAIL, PASSWORD } from '../../server/testing/accounts.ts';
import { startCore as startServeProcess } from '../../server/testing/core.ts';

export { ADMIN_EMAIL, PASSWORD };

export interface Core {
  url: string;
  stop(): Promise<void>;
}

/** A `towpath serve` core whose first admin is ADMIN_EMAIL, ready to be signed in to. */
export async function startSignedInCore(env: Record<string, string> = {}): Promise<Core> {
  const core = await startServeProcess({
    CREATE_ADMIN: 'true',
    ADMIN_EMAIL,
    ADMIN_PASSWORD: PASSWORD,
    ...env,
  });
  return {
    url: core.lan,
    async stop() {
      expect(await core.stop()).toBe(0);
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
