// The signed-in user's session token, one place for every feature: the sign-in screens write it, the
// GraphQL client, the machine panel (LAN status is readable with a bearer JWT) and the gateway client
// read it. Kept in localStorage so a reload stays signed in; other tabs hear of changes through the
// `storage` event.
const KEY = 'towpath.session';

type Listener = (token: string | null) => void;
const listeners = new Set<Listener>();

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    // Storage can be refused (privacy settings); the session then lasts as long as the page.
    return null;
  }
}

let memory: string | null = storage()?.getItem(KEY) ?? null;

export function getSessionToken(): string | null {
  return memory;
}

export function setSessionToken(token: string | null): void {
  memory = token;
  const store = storage();
  if (token === null) store?.removeItem(KEY);
  else store?.setItem(KEY, token);
  for (const listener of [...listeners]) listener(token);
}

/** Calls `listener` whenever the token changes, in this tab or another; returns the unsubscribe. */
export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key !== KEY) return;
    memory = event.newValue;
    for (const listener of [...listeners]) listener(memory);
  });
}

/** `Authorization` header for the current session, or none. */
export function authorizationHeader(): Record<string, string> {
  return memory ? { authorization: `Bearer ${memory}` } : {};
}
