// MQTT topic filters of broker allowlists (dashboard spec §10.2).

/** A filter of 1–256 chars without NUL; `+` only as a whole level, `#` only as the whole last level. */
export function isTopicFilter(filter: string): boolean {
  if (filter.length < 1 || filter.length > 256 || filter.includes('\u0000')) return false;
  const levels = filter.split('/');
  return levels.every((level, index) => {
    if (level.includes('#')) return level === '#' && index === levels.length - 1;
    return !level.includes('+') || level === '+';
  });
}

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
