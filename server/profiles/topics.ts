// MQTT topic filters of broker allowlists (dashboard spec §10.2). The filter syntax is the document's
// (engine/dashboard/document.ts); coverage between two filters is decided here.
export { isTopicFilter } from '../../engine/dashboard/document.ts';

/**
 * Whether filter F covers a datasource's topic T (which may itself be a filter), level by level:
 * `#` covers the rest, including no level at all (`a/#` covers `a`); `+` covers one level, a literal
 * or `+`; a literal covers only itself; a `#` in T only by `#`. Otherwise the level counts must match.
 */
export function filterCovers(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i += 1) {
    if (f[i] === '#') return true;
    if (i >= t.length || t[i] === '#') return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

/** An empty allowlist allows every topic. */
export function topicAllowed(allowlist: readonly string[], topic: string): boolean {
  return allowlist.length === 0 || allowlist.some((filter) => filterCovers(filter, topic));
}
