// Bindings the editor offers from the datasources' current values: each datasource by title, then
// the paths into its value (objects by key, arrays by their first element), a few levels deep.
import type { HubSnapshot } from '../realtime/hub.ts';

const NAME = /^[A-Za-z0-9_$-]+$/;

function step(key: string): string {
  return NAME.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

export function bindingOptions(snapshot: HubSnapshot, depth = 3, limit = 200): string[] {
  const out: string[] = [];
  const visit = (path: string, value: unknown, level: number) => {
    if (out.length >= limit) return;
    out.push(path);
    if (level >= depth) return;
    if (Array.isArray(value)) {
      if (value.length > 0) visit(`${path}[0]`, value[0], level + 1);
    } else if (value !== null && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) visit(`${path}${step(key)}`, child, level + 1);
  };
  for (const state of snapshot.states.values()) {
    const ref =
      NAME.test(state.title.trim()) && state.title.trim() !== 'datasources'
        ? state.title.trim()
        : `[${JSON.stringify(state.title.trim())}]`;
    visit(ref, state.hasValue ? state.value : undefined, 0);
  }
  return out;
}
