// The dashboard API's settings (spec §18) and the realtime gateway's, read from the environment.
import { INVALID_EMAIL, isValidEmail, normaliseEmail } from '../auth/email.ts';
import { isStrongPassword, WEAK_PASSWORD } from '../auth/password-policy.ts';
import { EgressConfigError } from '../gateway/egress.ts';
import { type GatewaySettings, readGatewaySettings } from '../gateway/settings.ts';
import { DEFAULT_TRUSTED_PROXIES, parseProxyRange } from '../http/client-address.ts';
import type { Env } from './data-dir-default.ts';
import { ConfigError, clamp, type EnvReader, invalid } from './env.ts';
import { checkSecret, SECRET_NAMES, type SecretName } from './secrets.ts';

/** Settings of the dashboard API (spec §18), already validated and clamped. */
export interface ApiConfig {
  jwtExpirationSeconds: number;
  /** `CREATE_ADMIN=true`: the bootstrap admin (email normalised, password strong). */
  bootstrapAdmin: { email: string; password: string } | null;
  /** 0 = unlimited. */
  userLimit: number;
  login: { maxAttempts: number; ipMaxAttempts: number; windowSeconds: number; lockSeconds: number };
  trustProxyHops: number;
  /** `TRUSTED_PROXIES`: IPs or CIDR ranges whose `X-Forwarded-For` is believed (§5.6). */
  trustedProxies: string[];
  datasource: {
    mintUserPerMinute: number;
    mintPublicIpPerMinute: number;
    mintShareTokenPerMinute: number;
    sessionTtlSeconds: number;
  };
  gateway: {
    introspectionPerMinute: number;
    revokedTokensPerMinute: number;
    revokedTokensMaxBatch: number;
    runtimeMetricsUrl: string | null;
  };
  revokeEventRetentionSeconds: number;
  policyEditLock: boolean;
  graphiql: boolean;
  corsOrigins: string[];
  /** Secrets given in the environment; the rest come from secrets.json (server/secrets.ts). */
  configuredSecrets: Partial<Record<SecretName, string>>;
}

/**
 * The dashboard API's variables and the realtime gateway's (§18): out-of-range limits are clamped
 * with a warning; secrets and passwords are never echoed.
 */
export function loadApiConfig(
  read: EnvReader,
  env: Env,
): { api: ApiConfig; realtimeGateway: GatewaySettings } {
  const { value, int, bool, warnings } = read;
  const trustProxyHops = read.wholeIn('API_TRUST_PROXY_HOPS', 0, 0, 16);

  const proxiesRaw = value('TRUSTED_PROXIES');
  const trustedProxies =
    proxiesRaw === undefined
      ? [...DEFAULT_TRUSTED_PROXIES]
      : proxiesRaw
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '');
  const badProxy = trustedProxies.find((entry) => parseProxyRange(entry) === null);
  if (badProxy !== undefined || trustedProxies.length === 0) {
    throw invalid(
      'TRUSTED_PROXIES',
      proxiesRaw,
      `TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (${JSON.stringify(badProxy ?? '')} is neither)`,
    );
  }

  let bootstrapAdmin: ApiConfig['bootstrapAdmin'] = null;
  if (bool('CREATE_ADMIN')) {
    const email = value('ADMIN_EMAIL');
    const password = env.ADMIN_PASSWORD;
    if (email === undefined) throw new ConfigError('CREATE_ADMIN=true needs ADMIN_EMAIL');
    if (password === undefined || password === '')
      throw new ConfigError('CREATE_ADMIN=true needs ADMIN_PASSWORD');
    const normalised = normaliseEmail(email);
    if (!isValidEmail(normalised)) {
      throw invalid('ADMIN_EMAIL', email, INVALID_EMAIL);
    }
    // The password itself is never echoed.
    if (!isStrongPassword(password)) throw new ConfigError(`ADMIN_PASSWORD is too weak: ${WEAK_PASSWORD}`);
    bootstrapAdmin = { email: normalised, password };
  }

  const configuredSecrets: Partial<Record<SecretName, string>> = {};
  for (const name of SECRET_NAMES) {
    const secret = env[name];
    if (secret === undefined || secret === '') continue;
    checkSecret(name, secret);
    configuredSecrets[name] = secret;
  }
  if (
    configuredSecrets.JWT_SECRET !== undefined &&
    configuredSecrets.JWT_SECRET === configuredSecrets.JWT_GATEWAY_SECRET
  ) {
    throw new ConfigError('JWT_GATEWAY_SECRET must differ from JWT_SECRET');
  }

  const metricsUrl = value('GATEWAY_RUNTIME_METRICS_URL');
  if (metricsUrl !== undefined && !isHttpUrl(metricsUrl)) {
    throw invalid(
      'GATEWAY_RUNTIME_METRICS_URL',
      metricsUrl,
      'GATEWAY_RUNTIME_METRICS_URL must be an http(s) URL',
    );
  }

  const graphiqlRaw = value('GRAPHIQL');
  const api: ApiConfig = {
    jwtExpirationSeconds: duration('JWT_TIME_EXPIRATION', value('JWT_TIME_EXPIRATION'), warnings),
    bootstrapAdmin,
    userLimit: int('USER_LIMIT', 0, 0, Number.MAX_SAFE_INTEGER),
    login: {
      maxAttempts: int('AUTH_LOGIN_MAX_ATTEMPTS', 5, 1, 10_000),
      ipMaxAttempts: int('AUTH_LOGIN_IP_MAX_ATTEMPTS', 20, 1, 10_000),
      windowSeconds: int('AUTH_LOGIN_WINDOW_SECONDS', 300, 1, 86_400),
      lockSeconds: int('AUTH_LOGIN_LOCK_SECONDS', 300, 1, 86_400),
    },
    trustProxyHops,
    trustedProxies,
    datasource: {
      mintUserPerMinute: int('DATASOURCE_TOKEN_MINT_RATE_LIMIT_USER_PER_MIN', 60, 1, 10_000),
      mintPublicIpPerMinute: int('DATASOURCE_TOKEN_MINT_RATE_LIMIT_PUBLIC_IP_PER_MIN', 30, 1, 10_000),
      mintShareTokenPerMinute: int('DATASOURCE_TOKEN_MINT_RATE_LIMIT_SHARE_TOKEN_PER_MIN', 60, 1, 10_000),
      sessionTtlSeconds: int('DATASOURCE_SESSION_TTL_SECONDS', 300, 60, 3600),
    },
    gateway: {
      introspectionPerMinute: int('GATEWAY_INTROSPECTION_RATE_LIMIT_PER_MIN', 600, 1, 100_000),
      revokedTokensPerMinute: int('GATEWAY_REVOKED_TOKENS_RATE_LIMIT_PER_MIN', 600, 1, 100_000),
      revokedTokensMaxBatch: int('GATEWAY_REVOKED_TOKENS_MAX_BATCH', 500, 1, 5000),
      runtimeMetricsUrl: metricsUrl ?? null,
    },
    revokeEventRetentionSeconds: int(
      'REALTIME_REVOKE_EVENT_RETENTION_SECONDS',
      86_400,
      60,
      Number.MAX_SAFE_INTEGER,
    ),
    policyEditLock: bool('POLICY_EDIT_LOCK'),
    graphiql: graphiqlRaw === '1',
    corsOrigins: (value('CORS_ORIGINS') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
    configuredSecrets,
  };
  let realtimeGateway: GatewaySettings;
  try {
    realtimeGateway = readGatewaySettings(read);
  } catch (error) {
    if (error instanceof EgressConfigError) throw new ConfigError(error.message);
    throw error;
  }
  return { api, realtimeGateway };
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `JWT_TIME_EXPIRATION`: integer seconds or `<n>s/m/h/d`, 60 s–30 d (clamped). */
function duration(name: string, raw: string | undefined, warnings: string[]): number {
  if (raw === undefined) return 7200;
  const match = /^(\d+)([smhd]?)$/.exec(raw);
  if (!match) {
    throw invalid(name, raw, `${name} must be seconds or a number followed by s, m, h or d`);
  }
  const seconds = Number(match[1]) * (DURATION_UNITS[match[2] || 's'] ?? 1);
  return clamp(name, seconds, 60, 30 * 86_400, warnings);
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
