// The three gateway checks of dashboard spec §13 bound to one workstation's state. The embedded
// realtime gateway calls these directly (no service token, no per-IP limiter); the
// `/internal/gateway/*` door (routes.ts) puts those two in front of the same calls.
import { importHmacKey } from '../../auth/sessions.ts';
import { VerifiedTokens } from '../../auth/verified-tokens.ts';
import type { Services } from '../../services.ts';
import { type IntrospectionDeps, type IntrospectionRequest, introspectDatasource } from './introspect.ts';
import { type ConsumeRequest, consumeRealtimeLimit, type RealtimeVerdict } from './rate-limit.ts';
import { type RevocationFeedRequest, readRevocationFeed } from './revocations.ts';

export interface GatewayChecks {
  introspect(request: IntrospectionRequest): ReturnType<typeof introspectDatasource>;
  revokedTokens(request: RevocationFeedRequest): ReturnType<typeof readRevocationFeed>;
  consumeRateLimit(request: ConsumeRequest): ConsumeAnswer;
}

export type ConsumeAnswer =
  | {
      status: 200;
      body: { allowed: boolean; retryAfterMs: number; remaining: number; reason: 'allowed' | 'limited' };
    }
  | { status: 400; body: { error: string } }
  | { status: 503; body: { error: string; reason: 'backend_fail_closed' } };

/** The limiter's verdict as the door answers it (§13.4). */
function consumeAnswer(verdict: RealtimeVerdict): ConsumeAnswer {
  if (verdict.kind === 'invalid') return { status: 400, body: { error: verdict.error } };
  if (verdict.kind === 'unavailable')
    return { status: 503, body: { error: 'Security limiter unavailable', reason: 'backend_fail_closed' } };
  const { allowed, retryAfterMs, remaining } = verdict;
  return { status: 200, body: { allowed, retryAfterMs, remaining, reason: allowed ? 'allowed' : 'limited' } };
}

/** What introspection reads, for the door's checks and the embedded gateway alike. */
export function introspectionDeps(services: Services, gatewaySecret: string): IntrospectionDeps {
  return {
    store: services.store,
    clock: services.clock,
    gatewayKey: importHmacKey(gatewaySecret),
    credentialProfiles: services.credentialProfiles,
    serviceAccountActive: (id: string) => services.serviceAccounts.isActive(id),
    verified: new VerifiedTokens<Record<string, unknown>>(),
  };
}

export function gatewayChecks(services: Services, gatewaySecret: string): GatewayChecks {
  const { store, clock, config, tokens, audit } = services;
  const introspection = introspectionDeps(services, gatewaySecret);
  const feed = {
    store,
    clock,
    retentionSeconds: config.revokeEventRetentionSeconds,
    maxBatch: config.gateway.revokedTokensMaxBatch,
  };
  const limiter = { store, clock, tokens, audit };
  return {
    introspect: (request) => introspectDatasource(introspection, request),
    revokedTokens: (request) => readRevocationFeed(feed, request),
    consumeRateLimit: (request) => consumeAnswer(consumeRealtimeLimit(limiter, request)),
  };
}
