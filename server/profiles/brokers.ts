// Broker profiles (dashboard spec §10.2): MQTT brokers a datasource may name, with TLS options, an
// optional BASIC credential profile and a topic allowlist.
import type { AuditLog } from '../auth/audit-log.ts';
import { iso, newEntityId } from '../auth/tokens.ts';
import type { Now } from '../clock.ts';
import type { ChangeBus } from '../dashboards/bus.ts';
import type { BrokerProfileRow } from '../db/repositories/profiles.ts';
import type { Store } from '../db/store.ts';
import { ServiceError } from '../errors.ts';
import { CREDENTIAL_PROFILE_NOT_FOUND } from './credentials.ts';
import { isTopicFilter } from './topics.ts';

export const BROKER_PROFILE_NOT_FOUND = 'Broker profile not found';

export interface BrokerTls {
  rejectUnauthorized?: boolean;
  servername?: string;
  ca?: string;
}

export interface BrokerProfileInput {
  name?: string | null;
  protocol?: 'mqtt' | null;
  description?: string | null;
  brokerUrl?: string | null;
  tls?: Record<string, unknown> | null;
  credentialProfileId?: string | null;
  allowPublicUse?: boolean | null;
  topicAllowlist?: string[] | null;
}

export interface BrokerProfileView {
  id: string;
  name: string;
  protocol: 'mqtt';
  description: string;
  brokerUrl: string;
  tls: BrokerTls | null;
  credentialProfileId: string | null;
  allowPublicUse: boolean;
  topicAllowlist: string[];
  createdAt: string;
  updatedAt: string;
}

const bad = (message: string) => new ServiceError('BAD_USER_INPUT', message);
const BAD_URL = 'brokerUrl must be an mqtt:// or mqtts:// URL without credentials';
const PEM = /-----BEGIN [A-Z0-9 ]+-----[\s\S]+-----END [A-Z0-9 ]+-----/;

function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > 100) throw bad('Broker profile name must be 1–100 characters');
  return name;
}

export function checkBrokerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad(BAD_URL);
  }
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') throw bad(BAD_URL);
  if (!url.hostname || url.username || url.password || url.port === '0') throw bad(BAD_URL);
  // "user@" with an empty user name still carries user info.
  if (/^[a-z]+:\/\/[^/]*@/i.test(raw)) throw bad(BAD_URL);
  return raw;
}

function checkTls(tls: Record<string, unknown> | null | undefined): BrokerTls | null {
  if (tls == null) return null;
  for (const key of Object.keys(tls))
    if (!['rejectUnauthorized', 'servername', 'ca'].includes(key))
      throw bad(`Invalid tls: unknown key ${key}`);
  if (tls.rejectUnauthorized !== undefined && typeof tls.rejectUnauthorized !== 'boolean')
    throw bad('Invalid tls: rejectUnauthorized must be a boolean');
  if (tls.servername !== undefined && (typeof tls.servername !== 'string' || tls.servername === ''))
    throw bad('Invalid tls: servername must be a non-empty string');
  if (tls.ca !== undefined && (typeof tls.ca !== 'string' || !PEM.test(tls.ca)))
    throw bad('Invalid tls: ca must be a PEM certificate');
  return tls as BrokerTls;
}

function checkAllowlist(list: readonly string[]): string[] {
  list.forEach((filter, index) => {
    if (!isTopicFilter(filter))
      throw bad(`Invalid topicAllowlist entry at index ${index}: not an MQTT topic filter`);
  });
  return [...list];
}

export interface BrokerProfileDeps {
  store: Store;
  clock: Now;
  audit: AuditLog;
  /** Told after commit of each update and delete, so live streams using the profile re-check. */
  bus: ChangeBus;
}

export class BrokerProfileService {
  readonly #deps: BrokerProfileDeps;

  constructor(deps: BrokerProfileDeps) {
    this.#deps = deps;
  }

  view(row: BrokerProfileRow): BrokerProfileView {
    return {
      id: row.id,
      name: row.name,
      protocol: row.protocol,
      description: row.description,
      brokerUrl: row.brokerUrl,
      tls: (row.tls ?? null) as BrokerTls | null,
      credentialProfileId: row.credentialProfileId,
      allowPublicUse: row.allowPublicUse,
      topicAllowlist: (row.topicAllowlist ?? []) as string[],
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  list(protocol?: 'mqtt' | null): BrokerProfileView[] {
    return this.#deps.store.brokerProfiles.list(protocol ?? undefined).map((row) => this.view(row));
  }

  create(actorUserId: string, input: BrokerProfileInput & { name: string; brokerUrl: string }) {
    const { store, clock } = this.#deps;
    const name = checkName(input.name);
    const brokerUrl = checkBrokerUrl(input.brokerUrl);
    const tls = checkTls(input.tls);
    const topicAllowlist = checkAllowlist(input.topicAllowlist ?? []);
    const now = iso(clock());
    const row: BrokerProfileRow = {
      id: newEntityId(clock()),
      name,
      protocol: input.protocol ?? 'mqtt',
      description: input.description ?? '',
      brokerUrl,
      tls,
      credentialProfileId: input.credentialProfileId ?? null,
      allowPublicUse: input.allowPublicUse ?? false,
      topicAllowlist,
      createdAt: now,
      updatedAt: now,
    };
    store.transaction(() => {
      this.#uniqueName(name, null);
      this.#checkCredential(row.credentialProfileId);
      store.brokerProfiles.insert(row);
    });
    this.#record(actorUserId, 'broker_profile.created', row);
    return this.view(row);
  }

  /** Omitted fields stay; an explicit null clears `tls` and `credentialProfileId`. */
  update(actorUserId: string, id: string, input: BrokerProfileInput) {
    const { store, clock } = this.#deps;
    const result = store.transaction(() => {
      const current = store.brokerProfiles.byId(id);
      // The addressed profile first, then its input (§4's precedence).
      if (!current) throw new ServiceError('NOT_FOUND', BROKER_PROFILE_NOT_FOUND);
      const name = input.name == null ? undefined : checkName(input.name);
      const brokerUrl = input.brokerUrl == null ? undefined : checkBrokerUrl(input.brokerUrl);
      const tls = 'tls' in input ? checkTls(input.tls) : undefined;
      const topicAllowlist = input.topicAllowlist == null ? undefined : checkAllowlist(input.topicAllowlist);
      const next: BrokerProfileRow = {
        ...current,
        name: name ?? current.name,
        protocol: input.protocol ?? current.protocol,
        description: input.description ?? current.description,
        brokerUrl: brokerUrl ?? current.brokerUrl,
        tls: tls === undefined ? current.tls : tls,
        credentialProfileId:
          'credentialProfileId' in input ? (input.credentialProfileId ?? null) : current.credentialProfileId,
        allowPublicUse: input.allowPublicUse ?? current.allowPublicUse,
        topicAllowlist: topicAllowlist ?? current.topicAllowlist,
      };
      if (name !== undefined) this.#uniqueName(name, id);
      if (next.credentialProfileId !== current.credentialProfileId)
        this.#checkCredential(next.credentialProfileId);
      const fields = (Object.keys(next) as (keyof BrokerProfileRow)[]).filter(
        (key) => JSON.stringify(next[key]) !== JSON.stringify(current[key]),
      );
      if (fields.length > 0) next.updatedAt = iso(clock());
      store.brokerProfiles.replace(next);
      return { next, fields };
    });
    this.#record(actorUserId, 'broker_profile.updated', result.next, result.fields);
    this.#deps.bus.publish({ kind: 'profile', profileId: id, profileType: 'broker', change: 'updated' });
    return this.view(result.next);
  }

  /** Datasources that name it are left dangling (their mint fails). */
  delete(actorUserId: string, id: string) {
    const { store } = this.#deps;
    const row = store.transaction(() => {
      const current = store.brokerProfiles.byId(id);
      if (!current) throw new ServiceError('NOT_FOUND', BROKER_PROFILE_NOT_FOUND);
      store.brokerProfiles.delete(id);
      return current;
    });
    this.#record(actorUserId, 'broker_profile.deleted', row);
    this.#deps.bus.publish({ kind: 'profile', profileId: id, profileType: 'broker', change: 'deleted' });
    return this.view(row);
  }

  #checkCredential(credentialProfileId: string | null) {
    if (credentialProfileId === null) return;
    const profile = this.#deps.store.credentialProfiles.byId(credentialProfileId);
    if (!profile) throw new ServiceError('NOT_FOUND', CREDENTIAL_PROFILE_NOT_FOUND);
    if (profile.type !== 'basic') throw bad('Broker profiles accept only BASIC credential profiles');
  }

  #uniqueName(name: string, exceptId: string | null) {
    const other = this.#deps.store.brokerProfiles.byName(name);
    if (other && other.id !== exceptId) throw bad('A broker profile with this name already exists');
  }

  #record(actorUserId: string, action: string, row: BrokerProfileRow, fields?: string[]) {
    this.#deps.audit.record({
      actorUserId,
      action,
      targetType: 'broker_profile',
      targetId: row.id,
      metadata: { name: row.name, ...(fields ? { fields } : {}) },
    });
  }
}
