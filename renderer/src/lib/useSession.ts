import { useSyncExternalStore } from 'react';
import { getSessionToken, onSessionChange } from './session.ts';

/** The current session token, re-rendering on sign-in, sign-out and changes in other tabs. */
export function useSessionToken(): string | null {
  return useSyncExternalStore(onSessionChange, getSessionToken);
}

// Why the session ended, for the sign-in screen to say: set when the server stops accepting the
// token (expired, password reset, role change), cleared by the next sign-in.
let endedBecause: string | null = null;

export function sessionEndedReason(): string | null {
  return endedBecause;
}

export function setSessionEndedReason(reason: string | null): void {
  endedBecause = reason;
}
