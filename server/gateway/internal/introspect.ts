// Datasource introspection (dashboard spec §13.2) as a plain function: the in-process gateway calls
// it directly; `/internal/gateway/datasource-introspect` is a thin door over it. It re-checks a
// session token against the current state and answers the intent with credentials applied.
import { jwtVerify } from 'jose';
import type { VerifiedTokens } from '../../auth/verified-tokens.ts';
import type { Now } from '../../clock.ts';
import type { DashboardRow } from '../../db/repositories/dashboards.ts';
import type { Store } from '../../db/store.ts';
import type { CredentialProfileService } from '../../profiles/credentials.ts';
import { intentHash, intentOf } from '../../profiles/session-tokens.ts';

export interface IntrospectionRequest {
  sessionToken: string;
  dashboardId?: string;
  datasourceId?: string;
}

export type IntrospectionAnswer =
  | { status: 200; body: Record<string, unknown> }
  | { status: 401 | 403 | 404; body: { error: string } };

export interface IntrospectionDeps {
  store: Store;
  clock: Now;
  /** `JWT_GATEWAY_SECRET`, imported once (`importHmacKey`). */
  gatewayKey: Promise<CryptoKey>;
  credentialProfiles: CredentialProfileService;
  /** Whether a service account exists and is active (server/service-accounts). */
  serviceAccountActive: (id: string) => boolean;
  /** Tokens whose signature was already checked: a gateway re-introspects the same ones. */
  verified?: VerifiedTokens<Record<string, unknown>>;
}

const refuse = (status: 401 | 403 | 404, error: string): IntrospectionAnswer => ({ status, body: { error } });

type Entry = { id?: unknown; type?: unknown; enabled?: unknown; settings?: Record<string, unknown> };

function userMayRead(store: Store, userId: string, row: DashboardRow): boolean {
  const user = store.users.byId(userId);
  if (!user?.active) return false;
  return user.role === 'admin' || row.ownerId === userId || store.dashboards.aclEntry(row.id, userId) != null;
}

/** Sets `name: value` on headers, replacing a same-named header whatever its case. */
function withHeader(headers: Record<string, unknown>, name: string, value: string) {
  const kept = Object.entries(headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase());
  return { ...Object.fromEntries(kept), [name]: value };
}

/** The claims of a gateway token signed with `JWT_GATEWAY_SECRET`, or null. */
async function verifiedClaims(
  deps: IntrospectionDeps,
  token: string,
): Promise<Record<string, unknown> | null> {
  const known = deps.verified?.get(token, Math.floor(deps.clock() / 1000));
  if (known) return known;
  try {
    const { payload } = await jwtVerify(token, await deps.gatewayKey, {
      algorithms: ['HS256'],
      issuer: 'towpath-api',
      audience: 'towpath-gateway',
      currentDate: new Date(deps.clock()),
      clockTolerance: 0,
      requiredClaims: ['exp'],
    });
    const claims = payload as Record<string, unknown>;
    deps.verified?.remember(token, payload, claims);
    return claims;
  } catch {
    return null;
  }
}

export async function introspectDatasource(
  deps: IntrospectionDeps,
  request: IntrospectionRequest,
): Promise<IntrospectionAnswer> {
  const { store } = deps;
  const claims = await verifiedClaims(deps, request.sessionToken);
  if (!claims) return refuse(401, 'Invalid session token');
  const dashboardId = String(claims.dashboardId);
  const datasourceId = String(claims.datasourceId);
  if (
    (request.dashboardId !== undefined && request.dashboardId !== dashboardId) ||
    (request.datasourceId !== undefined && request.datasourceId !== datasourceId)
  )
    return refuse(403, 'Token does not match the requested datasource');
  const row = store.dashboards.byId(dashboardId);
  if (!row) return refuse(404, 'Dashboard not found');
  const entry = (row.datasources as Entry[]).find((d) => d.id === datasourceId);
  if (!entry) return refuse(404, 'Datasource not found');
  const subject = String(claims.sub);
  const publicFlow = subject === 'public' || subject.startsWith('sa:');
  if (subject.startsWith('sa:')) {
    if (!deps.serviceAccountActive(subject.slice(3))) return refuse(403, 'Access revoked');
  } else if (subject !== 'public' && !userMayRead(store, subject, row)) return refuse(403, 'Access revoked');
  if (publicFlow && (row.visibility === 'private' || row.shareTokenVersion !== claims.shareTokenVersion))
    return refuse(403, 'Share token is stale');
  const intent = intentOf(entry);
  if (intentHash(intent) !== claims.intentHash)
    return refuse(403, 'Datasource changed since the token was minted');
  const settings = entry.settings ?? {};
  const credentialId = typeof claims.credentialProfileId === 'string' ? claims.credentialProfileId : null;
  const credential = credentialId ? store.credentialProfiles.byId(credentialId) : null;
  const broker = entry.type === 'mqtt' ? store.brokerProfiles.byId(String(settings.brokerProfileId)) : null;
  const brokerCredential = broker?.credentialProfileId
    ? store.credentialProfiles.byId(broker.credentialProfileId)
    : null;
  if (publicFlow) {
    const profiles = [credential, broker, brokerCredential].filter((p) => p != null);
    if (profiles.some((p) => !p.allowPublicUse)) return refuse(403, 'Public use not allowed');
  }
  if ((credentialId && !credential) || (entry.type === 'mqtt' && !broker))
    return refuse(403, 'Credential profile unavailable');
  if (entry.enabled === false) return refuse(403, 'Datasource disabled');

  const applied: Record<string, unknown> = { ...intent };
  if (entry.type === 'mqtt' && broker) {
    const secret = brokerCredential ? deps.credentialProfiles.openSecret(brokerCredential) : null;
    if (brokerCredential && !secret) return refuse(403, 'Credential profile unavailable');
    Object.assign(applied, {
      brokerUrl: broker.brokerUrl,
      tls: broker.tls ?? null,
      topicAllowlist: broker.topicAllowlist,
      username: secret?.username ?? null,
      password: secret?.password ?? null,
    });
  } else if (credential && credential.type !== 'none') {
    const secret = deps.credentialProfiles.openSecret(credential);
    if (!secret) return refuse(403, 'Credential profile unavailable');
    const headers = (applied.headers ?? {}) as Record<string, unknown>;
    if (applied.authPlacement === 'query' && typeof applied.queryParamName === 'string') {
      const value = credential.type === 'header' ? secret.headerValue : secret.token;
      const url = new URL(String(applied.url));
      url.searchParams.append(applied.queryParamName, value ?? '');
      applied.url = url.toString();
    } else if (credential.type === 'header') {
      const name = String((credential.metadata as Record<string, unknown>).headerName);
      applied.headers = withHeader(headers, name, secret.headerValue ?? '');
    } else if (credential.type === 'bearer') {
      applied.headers = withHeader(headers, 'Authorization', `Bearer ${secret.token}`);
    } else {
      const basic = Buffer.from(`${secret.username}:${secret.password}`).toString('base64');
      applied.headers = withHeader(headers, 'Authorization', `Basic ${basic}`);
    }
  }
  return {
    status: 200,
    body: {
      dashboardId,
      datasourceId,
      credentialProfileId: credentialId,
      scope: claims.scope,
      intent: applied,
    },
  };
}
