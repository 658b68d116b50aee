import type { Principal } from '../auth/principal.ts';
import type { UserRow } from '../db/repositories/users.ts';
import type { Services } from '../services.ts';
import { ADMIN_ROLE_REQUIRED, forbidden, unauthenticated } from './errors.ts';

/** Per request. */
export interface RequestContext {
  services: Services;
  principal: Principal;
  /** §5.6: for throttles and audit metadata only. */
  clientIp: string;
  /** The raw socket address, used only by the first-run rule (§6.1). */
  socketAddress: string | undefined;
}

/** Logged-in user or UNAUTHENTICATED; service accounts calling user operations are anonymous (§4). */
export function requireUser(context: RequestContext): UserRow {
  if (context.principal.kind !== 'user') throw unauthenticated();
  return context.principal.user;
}

export function requireAdmin(context: RequestContext): UserRow {
  const user = requireUser(context);
  if (user.role !== 'admin') throw forbidden(ADMIN_ROLE_REQUIRED);
  return user;
}
