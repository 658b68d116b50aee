// What the user, invite and password-reset modules share: the User projection and the caller's
// addresses for anonymous account operations.
import type { CallerAddresses } from '../../accounts/services.ts';
import type { Role, UserRow } from '../../db/repositories/users.ts';
import type { RequestContext } from '../context.ts';

export interface UserView {
  _id: string;
  email: string;
  role: Role;
  active: boolean;
  registrationDate: string;
  lastLogin: string;
}

export function toUserView(row: UserRow): UserView {
  return {
    _id: row.id,
    email: row.email,
    role: row.role,
    active: row.active,
    registrationDate: row.registrationDate,
    lastLogin: row.lastLogin,
  };
}

/** The GraphQL `Token` type: a session for the new or signed-in account. */
export async function tokenView(token: Promise<string>): Promise<{ token: string }> {
  return { token: await token };
}

/** Who an anonymous account operation is for: the request's addresses, nothing else of it. */
export function callerAddresses(context: RequestContext): CallerAddresses {
  return { clientIp: context.clientIp, socketAddress: context.socketAddress };
}
