// The urql client for the dashboard API: queries and mutations over POST /graphql with the session's
// bearer, subscriptions over graphql-sse on /graphql/stream. A rejected session token makes the
// caller anonymous (no error of its own), so the first "must be logged in" answer to a request that
// carried one ends the session here, with the reason kept for the sign-in screen.
import { createClient as createSseClient } from 'graphql-sse';
import {
  Client,
  type CombinedError,
  cacheExchange,
  fetchExchange,
  mapExchange,
  subscriptionExchange,
} from 'urql';
import { authorizationHeader, getSessionToken, setSessionToken } from '../session.ts';
import { setSessionEndedReason } from '../useSession.ts';

export const SESSION_EXPIRED_MESSAGE =
  'Your session has ended (it expired or your account changed). Sign in again.';
const NOT_SIGNED_IN = 'You must be logged in to perform this action';

/** The first GraphQL error's code, or NETWORK when the request did not get an answer. */
export function errorCode(error: CombinedError | undefined | null): string | undefined {
  if (!error) return undefined;
  const code = error.graphQLErrors[0]?.extensions?.code;
  if (typeof code === 'string') return code;
  return error.networkError ? 'NETWORK' : undefined;
}

/** A message for people: the server's own text, or a plain one when the core is unreachable. */
export function errorMessage(error: CombinedError | undefined | null): string | undefined {
  if (!error) return undefined;
  const first = error.graphQLErrors[0];
  if (first) return first.message;
  return 'The workstation did not answer. Check the connection and try again.';
}

export function errorExtension(error: CombinedError | undefined | null, key: string): unknown {
  return error?.graphQLErrors[0]?.extensions?.[key];
}

export function createGraphqlClient(origin = ''): Client {
  const sse = createSseClient({
    url: `${origin}/graphql/stream`,
    headers: () => authorizationHeader(),
    // Reconnects are the caller's business: the editor re-reads after a gap anyway.
    retryAttempts: 3,
  });
  // The token this client was made for: the provider makes a new client whenever it changes.
  const token = getSessionToken();
  return new Client({
    url: `${origin}/graphql`,
    preferGetMethod: false,
    fetchOptions: () => ({ headers: authorizationHeader(), cache: 'no-store' }),
    exchanges: [
      mapExchange({
        onError(error) {
          if (
            token &&
            getSessionToken() === token &&
            error.graphQLErrors.some((e) => e.message === NOT_SIGNED_IN)
          ) {
            setSessionEndedReason(SESSION_EXPIRED_MESSAGE);
            setSessionToken(null);
          }
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => {
            const dispose = sse.subscribe({ ...request, query: request.query ?? '' }, sink);
            return { unsubscribe: dispose };
          },
        }),
      }),
    ],
  });
}
