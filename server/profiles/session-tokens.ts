// Datasource session tokens (dashboard spec §11): who may have a short-lived gateway token for one
// datasource of one dashboard, under which flow, and the intent the token is bound to (by hash).
import { createHash, randomBytes } from 'node:crypto';
import type { AuditLog } from '../auth/audit-log.ts';
import { Hs256Signer } from '../auth/hs256.ts';
import type { Principal } from '../auth/principal.ts';
import { fixedWindows, LimiterUnavailable } from '../auth/rate-limit.ts';
import { constantTimeEqual, iso, type TokenHasher } from '../auth/tokens.ts';
import type { Now } from '../clock.ts';
import type { ApiConfig } from '../config/api.ts';
import { canonicalJson, datasourceDetail } from '../dashboards/document.ts';
import type { DashboardRow } from '../db/repositories/dashboards.ts';
import type { Store } from '../db/store.ts';
import { ServiceError } from '../errors.ts';
import { topicAllowed } from './topics.ts';

export const MINT_SCOPE = 'datasource:mint';
const MINTED = new Set(['http', 'sse', 'websocket', 'mqtt']);

export type DenialReason =
  | 'DASHBOARD_NOT_FOUND'
  | 'SHARE_TOKEN_INVALID'
  | 'DATASOURCE_NOT_FOUND'
  | 'DATASOURCE_DISABLED'
  | 'UNSUPPORTED_DATASOURCE'
  | 'INVALID_DATASOURCE'
  | 'CREDENTIAL_PROFILE_NOT_FOUND'
  | 'BROKER_PROFILE_NOT_FOUND'
  | 'PUBLIC_USE_NOT_ALLOWED'
  | 'TOPIC_NOT_ALLOWED';

const deny = (reason: DenialReason): never => {
  throw new ServiceError('FORBIDDEN', `Datasource token denied: ${reason}`, { reason });
};

type Settings = Record<string, unknown>;
type Datasource = { id?: unknown; type?: unknown; enabled?: unknown; settings?: Settings };

/** The §11 intent of a datasource with its defaults filled in (no credentials). */
export function intentOf(entry: Datasource): Record<string, unknown> {
  const s = entry.settings ?? {};
  const type = entry.type as string;
  const or = (value: unknown, fallback: unknown) => (value === undefined ? fallback : value);
  if (type === 'http')
    return {
      protocol: 'http',
      url: s.url,
      method: or(s.method, 'GET'),
      body: or(s.body, null),
      parser: or(s.parser, 'json'),
      timeoutMs: or(s.timeoutMs, 15000),
      headers: or(s.headers, {}),
    };
  if (type === 'mqtt')
    return {
      protocol: 'mqtt',
      brokerProfileId: s.brokerProfileId,
      topic: s.topic,
      qos: or(s.qos, 0),
      parser: or(s.parser, 'json'),
      keepaliveSeconds: or(s.keepaliveSeconds, 60),
    };
  return {
    protocol: type,
    url: s.url,
    parser: or(s.parser, 'json'),
    headers: or(s.headers, {}),
    idleTimeoutMs: or(s.idleTimeoutMs, type === 'sse' ? 120000 : 300000),
    authPlacement: or(s.authPlacement, 'header'),
    queryParamName: or(s.queryParamName, null),
    ...(type === 'websocket' ? { protocols: or(s.protocols, []) } : {}),
  };
}

export const intentHash = (intent: Record<string, unknown>) =>
  createHash('sha256').update(canonicalJson(intent)).digest('hex');

export interface MintRequest {
  caller: Principal;
  clientIp: string;
  dashboardId: string;
  datasourceId: string;
  shareToken?: string | null;
}

export interface MintDeps {
  store: Store;
  clock: Now;
  audit: AuditLog;
  tokens: TokenHasher;
  config: ApiConfig['datasource'];
  gatewaySecret: string;
  metrics: { datasourceMintSuccessCount: number; datasourceMintFailureCount: number };
}

export class SessionTokenService {
  readonly #deps: MintDeps;
  readonly #signer: Hs256Signer;

  constructor(deps: MintDeps) {
    this.#deps = deps;
    this.#signer = new Hs256Signer(deps.gatewaySecret);
  }

  async mint(request: MintRequest): Promise<{ token: string; expiresAt: string }> {
    try {
      const result = await this.#mint(request);
      this.#deps.metrics.datasourceMintSuccessCount += 1;
      return result;
    } catch (error) {
      this.#deps.metrics.datasourceMintFailureCount += 1;
      throw error;
    }
  }

  async #mint(request: MintRequest) {
    const { store, clock } = this.#deps;
    const { caller } = request;
    if (caller.kind === 'service' && !caller.scopes.includes(MINT_SCOPE))
      throw new ServiceError('FORBIDDEN', 'Service account lacks scope DATASOURCE_MINT');
    const row = store.dashboards.byId(request.dashboardId);
    const userFlow =
      caller.kind === 'user' &&
      row !== undefined &&
      (caller.user.role === 'admin' ||
        row.ownerId === caller.user.id ||
        store.dashboards.aclEntry(row.id, caller.user.id) != null);
    const flow = userFlow ? 'user' : caller.kind === 'service' ? 'service' : 'public';
    const shareToken = userFlow ? null : (request.shareToken ?? null);
    this.#limit(request, flow, shareToken);

    let dashboard: DashboardRow;
    if (userFlow && row) dashboard = row;
    else if (shareToken !== null) {
      if (
        !row ||
        row.visibility === 'private' ||
        !row.shareToken ||
        !constantTimeEqual(row.shareToken, shareToken)
      )
        return deny('SHARE_TOKEN_INVALID');
      dashboard = row;
    } else {
      if (row?.visibility !== 'public') return deny('DASHBOARD_NOT_FOUND');
      dashboard = row;
    }
    const entry = (dashboard.datasources as Datasource[]).find((d) => d.id === request.datasourceId);
    if (!entry) return deny('DATASOURCE_NOT_FOUND');
    if (entry.enabled === false) return deny('DATASOURCE_DISABLED');
    if (!MINTED.has(entry.type as string)) return deny('UNSUPPORTED_DATASOURCE');
    if (datasourceDetail(entry) !== null) return deny('INVALID_DATASOURCE');
    const settings = entry.settings ?? {};
    const publicFlow = !userFlow;
    const credentialId =
      entry.type !== 'mqtt' &&
      typeof settings.credentialProfileId === 'string' &&
      settings.credentialProfileId !== ''
        ? settings.credentialProfileId
        : null;
    if (credentialId !== null) {
      const profile = store.credentialProfiles.byId(credentialId);
      if (!profile) return deny('CREDENTIAL_PROFILE_NOT_FOUND');
      if (profile.type === 'basic' && settings.authPlacement === 'query') return deny('INVALID_DATASOURCE');
      if (publicFlow && !profile.allowPublicUse) return deny('PUBLIC_USE_NOT_ALLOWED');
    }
    if (entry.type === 'mqtt') {
      const broker = store.brokerProfiles.byId(String(settings.brokerProfileId));
      if (!broker) return deny('BROKER_PROFILE_NOT_FOUND');
      if (publicFlow) {
        const brokerCredential = broker.credentialProfileId
          ? store.credentialProfiles.byId(broker.credentialProfileId)
          : null;
        if (!broker.allowPublicUse || (brokerCredential && !brokerCredential.allowPublicUse))
          return deny('PUBLIC_USE_NOT_ALLOWED');
      }
      if (!topicAllowed(broker.topicAllowlist as string[], String(settings.topic)))
        return deny('TOPIC_NOT_ALLOWED');
    }

    const iat = Math.floor(clock() / 1000);
    const exp = iat + this.#deps.config.sessionTtlSeconds;
    const claims: Record<string, unknown> = {
      dashboardId: dashboard.id,
      datasourceId: request.datasourceId,
      credentialProfileId: credentialId,
      intentHash: intentHash(intentOf(entry)),
      scope: entry.type === 'http' ? 'datasource:fetch' : 'datasource:stream',
      role:
        userFlow && caller.kind === 'user'
          ? caller.user.role
          : caller.kind === 'service'
            ? 'service'
            : 'public',
    };
    if (!userFlow) claims.shareTokenVersion = dashboard.shareTokenVersion;
    const subject =
      userFlow && caller.kind === 'user'
        ? caller.user.id
        : caller.kind === 'service'
          ? `sa:${caller.serviceAccountId}`
          : 'public';
    const token = this.#signer.sign({
      ...claims,
      iss: 'towpath-api',
      aud: 'towpath-gateway',
      sub: subject,
      jti: randomBytes(16).toString('hex'),
      iat,
      exp,
    });
    return { token, expiresAt: iso(exp * 1000) };
  }

  /** §11 rate limits, after the scope check and before every other check. */
  #limit(request: MintRequest, flow: 'user' | 'service' | 'public', shareToken: string | null) {
    const { store, clock, tokens, config, audit } = this.#deps;
    const { caller } = request;
    const keys: [string, string, number][] = [];
    if (flow === 'user' && caller.kind === 'user') {
      keys.push(['user', `user:${caller.user.id}`, config.mintUserPerMinute]);
      keys.push([
        'user_dashboard',
        `user-dashboard:${caller.user.id}:${request.dashboardId}`,
        config.mintUserPerMinute,
      ]);
    } else if (flow === 'service' && caller.kind === 'service') {
      keys.push(['service_account', `sa:${caller.serviceAccountId}`, config.mintUserPerMinute]);
    } else {
      keys.push(['public_ip', `ip:${request.clientIp}`, config.mintPublicIpPerMinute]);
    }
    if (shareToken !== null)
      keys.push(['share_token', `share:${shareToken}`, config.mintShareTokenPerMinute]);
    const actor = caller.kind === 'user' ? caller.user.id : null;
    const serviceMeta = caller.kind === 'service' ? { serviceAccountId: caller.serviceAccountId } : {};
    let results: ReturnType<typeof fixedWindows>;
    try {
      // One transaction for all keys: one commit per mint.
      results = fixedWindows(
        store,
        clock,
        keys.map(([, key, limit]) => ({ keyHash: tokens.hash('limiter', `mint:${key}`), limit })),
      );
    } catch (error) {
      if (!(error instanceof LimiterUnavailable)) throw error;
      audit.record({
        actorUserId: actor,
        action: 'datasource.session_token.limiter_unavailable',
        targetType: 'limiter',
        targetId: null,
        metadata: { flow, ...serviceMeta },
      });
      throw new ServiceError('SERVICE_UNAVAILABLE', 'Security limiter unavailable');
    }
    let longest = 0;
    results.forEach((result, i) => {
      if (result.allowed) return;
      longest = Math.max(longest, result.retryAfterMs);
      if (result.firstRefusal)
        audit.record({
          actorUserId: actor,
          action: 'datasource.session_token.rate_limited',
          targetType: 'limiter',
          targetId: null,
          metadata: { flow, limiter: keys[i]?.[0], ...serviceMeta },
        });
    });
    if (longest > 0) {
      const seconds = Math.max(1, Math.ceil(longest / 1000));
      throw new ServiceError(
        'TOO_MANY_REQUESTS',
        `Too many datasource token requests. Try again in ${seconds} seconds.`,
        {
          retryAfterSeconds: seconds,
        },
      );
    }
  }
}
