import { GraphQLError } from 'graphql';

// The error codes and messages of dashboard spec §4. Resolvers throw these; anything else is masked.

function coded(code: string, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

export const unauthenticated = (message = 'You must be logged in to perform this action') =>
  coded('UNAUTHENTICATED', message);
export const forbidden = (message: string) => coded('FORBIDDEN', message);
export const notFound = (message: string) => coded('NOT_FOUND', message);
export const badUserInput = (message: string) => coded('BAD_USER_INPUT', message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  coded('TOO_MANY_REQUESTS', message, { retryAfterSeconds });
export const serviceUnavailable = () => coded('SERVICE_UNAVAILABLE', 'Security limiter unavailable');

export const ADMIN_ROLE_REQUIRED = 'Admin role required';
export const INVALID_CREDENTIALS = 'Invalid credentials';
