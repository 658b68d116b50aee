import { type MouseEvent, useCallback, useSyncExternalStore } from 'react';

// Which page is open: the History API is enough and keeps addresses such as /dashboards/<id>
// bookmarkable (the LAN door answers them with the app page). The frame and the features share it.

function subscribe(onChange: () => void) {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
}

/** Opens `path` inside the app, as a link would, without reloading the page. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function usePathname(): [string, (path: string) => void] {
  const pathname = useSyncExternalStore(subscribe, () => window.location.pathname);
  const go = useCallback((path: string) => navigate(path), []);
  return [pathname, go];
}

/** A link's click handler that stays in the app; modified clicks keep the browser's meaning. */
export function followLink(path: string) {
  return (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(path);
  };
}

/**
 * The decoded `index`-th segment of a path (`/s/<token>` → 1), or '' when absent. A malformed
 * escape (`/s/%ZZ`, typed or pasted) is kept as it is rather than breaking the page: the server then
 * answers it as the unknown token it is.
 */
export function pathSegment(pathname: string, index: number): string {
  const raw = pathname.split('/')[index + 1] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
