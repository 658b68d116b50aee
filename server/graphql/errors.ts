import { GraphQLError } from 'graphql';
import { LOGIN_REQUIRED } from '../accounts/messages.ts';

// The door's own refusals (§4): who may call at all, and arguments the schema lets through but no
// operation can use, decided before any service runs. The services' outcomes travel as ServiceError
// and are mapped in yoga.ts; anything else is masked.

function coded(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

export const unauthenticated = (message = LOGIN_REQUIRED) => coded('UNAUTHENTICATED', message);
export const forbidden = (message: string) => coded('FORBIDDEN', message);
/** An argument missing where the schema lets it be null (the contract's nullable inputs). */
export const badUserInput = (message: string) => coded('BAD_USER_INPUT', message);

export const ADMIN_ROLE_REQUIRED = 'Admin role required';
