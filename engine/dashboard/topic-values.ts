// What an `mqtt` datasource on a wildcard filter is worth to bindings (`dashboard-document.md` §3.2,
// amended in docs/dashboards-fleet.md): the object topic → latest payload of every topic the filter
// matched, at most 1000 topics (the least recently updated goes first), and a zero-length retained
// payload removing its topic, which is how MQTT deletes a retained message. And how list widgets take
// such an object as rows.

export const KEPT_TOPICS = 1000;

/** Whether an MQTT topic filter matches more than one topic (`+` or `#` as a level). */
export function hasWildcard(filter: string): boolean {
  return filter.split('/').some((level) => level === '+' || level === '#');
}

/** The latest payload of each topic a wildcard filter matched, in order of last update. */
export class TopicValues {
  readonly #latest = new Map<string, unknown>();
  readonly #limit: number;

  constructor(limit = KEPT_TOPICS) {
    this.#limit = limit;
  }

  /** A message on `topic`: its value, or with `removed` (a zero-length payload) its deletion. */
  apply(topic: string, value: unknown, removed = false): void {
    this.#latest.delete(topic);
    if (removed) return;
    this.#latest.set(topic, value);
    if (this.#latest.size > this.#limit) this.#latest.delete(this.#latest.keys().next().value as string);
  }

  get size(): number {
    return this.#latest.size;
  }

  /** A fresh object each time, so a view that compares by identity sees every change. */
  value(): Record<string, unknown> {
    return Object.fromEntries(this.#latest);
  }
}

/**
 * The rows a `table`, `status-list` or `bar-chart` shows for the value at its `valuePath`: an array as
 * it is; an object's values sorted by key (code-point order, so the order is the same in every
 * browser and locale); anything else is not rows (null).
 */
export function rowsOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (value === null || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  return Object.keys(record)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => record[key]);
}
