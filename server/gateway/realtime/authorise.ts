// Who may stream what (gateway spec §3.3, §3.4, §8): session tokens verified and introspected
// in-process (API §13.2, with the §5.1 "Datasource disabled" row), and the read check of a `machine`
// subscription, which has no session token and is granted to whoever can read the dashboard.
import { decodeJwt, jwtVerify } from 'jose';
import { resolvePrincipal, type ServiceAccountAuthenticator } from '../../auth/principal.ts';
import type { SessionTokens } from '../../auth/sessions.ts';
import { constantTimeEqual } from '../../auth/tokens.ts';
import type { Now } from '../../clock.ts';
import type { DashboardService } from '../../dashboards/service.ts';
import type { Store } from '../../db/store.ts';
import { type IntrospectionDeps, introspectDatasource } from '../internal/introspect.ts';
import { Refusal, STREAMED_WITH_TOKEN } from './protocol.ts';
import type { MachineAuth, TokenClaims } from './subscription.ts';

export const INVALID_SESSION_TOKEN = 'Invalid session token';

/** §3.3 step 3: signature, algorithm, issuer, audience and expiry, as the first row of §13.2. */
export async function verifySessionToken(
  secret: Uint8Array,
  clock: Now,
  token: string,
): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      issuer: 'towpath-api',
      audience: 'towpath-gateway',
      currentDate: new Date(clock()),
    });
    return claimsOf(payload);
  } catch {
    return null;
  }
}

/** The claims of a token without checking it (renewal compares them before introspecting). */
export function unverifiedClaims(token: string): TokenClaims | null {
  try {
    return claimsOf(decodeJwt(token));
  } catch {
    return null;
  }
}

function claimsOf(payload: Record<string, unknown>): TokenClaims | null {
  const { sub, exp, jti, dashboardId, datasourceId, intentHash, credentialProfileId, shareTokenVersion } =
    payload;
  if (typeof sub !== 'string' || typeof exp !== 'number' || typeof dashboardId !== 'string') return null;
  return {
    sub,
    exp,
    jti: String(jti),
    dashboardId,
    datasourceId: String(datasourceId),
    intentHash: String(intentHash),
    credentialProfileId: typeof credentialProfileId === 'string' ? credentialProfileId : null,
    ...(typeof shareTokenVersion === 'number' ? { shareTokenVersion } : {}),
  };
}

export interface Introspected {
  scope: unknown;
  intent: Record<string, unknown>;
}

/** §5.1: the complete §13.2 check; a refusal keeps its status and message. */
export async function introspect(
  deps: IntrospectionDeps,
  sessionToken: string,
  dashboardId?: string,
  datasourceId?: string,
): Promise<Introspected | { status: number; error: string }> {
  const answer = await introspectDatasource(deps, {
    sessionToken,
    ...(dashboardId === undefined ? {} : { dashboardId }),
    ...(datasourceId === undefined ? {} : { datasourceId }),
  });
  if (answer.status !== 200)
    return { status: answer.status, error: (answer.body as { error: string }).error };
  const body = answer.body as { scope: unknown; intent: Record<string, unknown> };
  return { scope: body.scope, intent: body.intent };
}

export interface MachineGrant {
  userId: string | null;
  /** The bearer's `exp` in ms, when a signed-in user's JWT authenticated the caller. */
  expiresAt: number | null;
  /** Read came only through PUBLIC or the share token: the public limiters apply (§8 step 4). */
  publicOnly: boolean;
  shareTokenVersion: number;
}

export interface MachineCheckDeps {
  store: Store;
  sessions: SessionTokens;
  serviceAccounts: ServiceAccountAuthenticator;
  dashboards: DashboardService;
}

/** §8 steps 2–3; throws `Refusal` with the spec's reason and message. */
export async function checkMachineRead(
  deps: MachineCheckDeps,
  auth: MachineAuth,
  dashboardId: string,
  datasourceId: string,
): Promise<MachineGrant> {
  const resolved = auth.bearer ? await resolvePrincipal(`Bearer ${auth.bearer}`, deps) : null;
  const principal = resolved?.principal ?? { kind: 'anonymous' as const };
  const row = deps.store.dashboards.byId(dashboardId);
  const caps = row ? deps.dashboards.capabilities(principal, row) : null;
  const byShareToken =
    row !== undefined &&
    auth.shareToken !== undefined &&
    row.visibility !== 'private' &&
    row.shareToken !== null &&
    constantTimeEqual(row.shareToken, auth.shareToken);
  if (!row || !(caps?.read || byShareToken))
    throw new Refusal('denied', 'Dashboard not found', { status: 404 });
  const entry = (row.datasources as { id?: unknown; type?: unknown; enabled?: unknown }[]).find(
    (d) => d.id === datasourceId,
  );
  if (!entry) throw new Refusal('denied', 'Datasource not found', { status: 404 });
  const type = String(entry.type);
  if (STREAMED_WITH_TOKEN.has(type))
    throw new Refusal('invalid_request', `sessionToken is required for ${type} datasources`);
  if (type !== 'machine') throw new Refusal('invalid_request', `Datasource type ${type} cannot be streamed`);
  if (entry.enabled === false) throw new Refusal('denied', 'Datasource disabled', { status: 403 });
  const user = principal.kind === 'user' ? principal.user : null;
  const userRead =
    user !== null &&
    (user.role === 'admin' ||
      row.ownerId === user.id ||
      deps.store.dashboards.aclEntry(row.id, user.id) != null);
  let expiresAt: number | null = null;
  if (user && auth.bearer) {
    const exp = decodeJwt(auth.bearer).exp;
    expiresAt = typeof exp === 'number' ? exp * 1000 : null;
  }
  return {
    userId: user?.id ?? null,
    expiresAt,
    publicOnly: !userRead,
    shareTokenVersion: row.shareTokenVersion,
  };
}
