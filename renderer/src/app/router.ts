import { useCallback, useSyncExternalStore } from 'react';

// The shell needs only "which area is open"; the History API is enough and keeps addresses such as
// /winding bookmarkable (the LAN door answers them with the app page).

function subscribe(onChange: () => void) {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
}

export function usePathname(): [string, (path: string) => void] {
  const pathname = useSyncExternalStore(subscribe, () => window.location.pathname);
  const navigate = useCallback((path: string) => {
    if (path === window.location.pathname) return;
    window.history.pushState(null, '', path);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, []);
  return [pathname, navigate];
}
