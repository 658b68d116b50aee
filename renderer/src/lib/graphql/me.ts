import { useQuery } from 'urql';
import { useSessionToken } from '../useSession.ts';
import { MeDocument, type MeQuery } from './generated.ts';

export type SignedInUser = NonNullable<MeQuery['me']>;

/**
 * The signed-in account as the server sees it now (role and active state are never taken from the
 * token): `user` is null when signed out; `fetching` while the answer is on its way.
 */
export function useMe(): { user: SignedInUser | null; fetching: boolean } {
  const token = useSessionToken();
  const [result] = useQuery({ query: MeDocument, pause: !token, requestPolicy: 'cache-and-network' });
  if (!token) return { user: null, fetching: false };
  return { user: result.data?.me ?? null, fetching: result.fetching && !result.data };
}
