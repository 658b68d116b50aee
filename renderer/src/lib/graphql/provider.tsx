import { type ReactNode, useMemo } from 'react';
import { Provider } from 'urql';
import { useSessionToken } from '../useSession.ts';
import { createGraphqlClient } from './client.ts';

/** A fresh client (and cache) per session, so nothing one account read is shown to the next. */
export function GraphqlProvider({ children }: { children: ReactNode }) {
  const token = useSessionToken();
  const client = useMemo(() => createGraphqlClient(), [token]);
  return <Provider value={client}>{children}</Provider>;
}
