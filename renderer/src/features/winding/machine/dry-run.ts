// The panel's dry run: the machine process checks the program (against the connected profile's
// soft limits too), counts it and records it in the job history. A browser that may not control
// the machine, or a moment with no machine process, still gets the count from the preview worker.
import { MACHINE_ROUTES } from '#engine/machine/contract.ts';
import { isControlRefused } from '../../../lib/machine-door.ts';
import type { LogKind } from './useMachine.ts';

/** A route of the job family with the program's name for the history. */
export function namedJobUrl(route: string, name: string): string {
  return `${route}?name=${encodeURIComponent(name)}`;
}

export interface DryRunParts {
  name: string;
  /** Posts the open program to a machine route (the preview worker holds it). */
  post(url: string): Promise<{ status: number; body: unknown }>;
  /** The preview worker's own count, for when the machine process cannot be asked. */
  count(): Promise<{ total: number; error?: string | undefined }>;
  say(text: string, kind?: LogKind): void;
}

export async function dryRun({ name, post, count, say }: DryRunParts): Promise<void> {
  const answer = await post(namedJobUrl(MACHINE_ROUTES.dryRun, name));
  const body = answer.body as { total_commands?: unknown; detail?: unknown } | null;
  if (answer.status === 200 && typeof body?.total_commands === 'number') {
    say(`${body.total_commands.toLocaleString('en')} commands would be streamed (dry run; no port opened)`);
    return;
  }
  if (isControlRefused(answer.status) || answer.status === 401 || answer.status === 503) {
    const { total, error } = await count();
    say(
      error ?? `${total.toLocaleString('en')} commands would be streamed (dry run; no port opened)`,
      error ? 'error' : 'action',
    );
    return;
  }
  say(
    typeof body?.detail === 'string' ? body.detail : `The dry run was refused (HTTP ${answer.status})`,
    'error',
  );
}
