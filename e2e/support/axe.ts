// axe-core run inside the page (injected as a script; specs using it bypass the page's CSP).
import { join } from 'node:path';
import type { Page } from '@playwright/test';

const AXE_SCRIPT = join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js');

interface AxeResult {
  violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
}

/** The serious and critical violations on the page, as `rule: targets` lines. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  return axeViolations(page, ['serious', 'critical']);
}

/**
 * Every violation on the page whatever its impact (or only those of `impacts`), as `rule: targets`
 * lines: for pages held to being wholly axe-clean, minor and moderate findings included.
 */
export async function axeViolations(page: Page, impacts?: readonly string[]): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<AxeResult> } }).axe;
    return (await axe.run()).violations.map((v) => ({
      impact: v.impact,
      line: `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    }));
  });
  return violations.filter((v) => impacts === undefined || impacts.includes(v.impact)).map((v) => v.line);
}
