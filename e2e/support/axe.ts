// axe-core run inside the page (injected as a script; specs using it bypass the page's CSP).
import { join } from 'node:path';
import type { Page } from '@playwright/test';

const AXE_SCRIPT = join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js');

interface AxeResult {
  violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
}

/** The serious and critical violations on the page, as `rule: targets` lines. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<AxeResult> } }).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
