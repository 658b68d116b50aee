// The fleet publisher's settings: where the shop's broker is and who this workstation is on it.
// Unset FLEET_BROKER_URL = fleet off. The broker is reached over TLS unless it runs on this PC,
// and the URL may not carry a user or password, so a logged broker address never leaks one.
import { type EnvReader, invalid } from './env.ts';

export interface FleetConfig {
  /** `mqtts://host:port`, or `mqtt://` to a loopback broker only. */
  brokerUrl: string;
  /** `FLEET_WORKSTATION_ID`: this winder's one identity in topics, the MQTT username and client id. */
  workstationId: string;
  /** `FLEET_NAME`: what people call it; the id when unset. */
  name: string;
  /** `FLEET_USERNAME`: the broker credential's user; the workstation id when unset. */
  username: string;
  /** `FLEET_PASSWORD`: never logged. */
  password: string | null;
  /** `FLEET_CA_FILE`: the shop CA's certificate (PEM) that the broker's certificate must chain to. */
  caFile: string | null;
  /** `FLEET_TLS_SERVERNAME`: the name the broker's certificate must carry, when not the URL's host. */
  tlsServername: string | null;
  /** `FLEET_TOPIC_PREFIX`: the state goes to `<prefix>/<workstationId>/state`. */
  topicPrefix: string;
  keepaliveSeconds: number;
  /** At most one state message per this many milliseconds, job and connection transitions apart. */
  minIntervalMs: number;
  /** `FLEET_PUBLISH_JOB_NAME=0` blanks job names for shops that treat part numbers as confidential. */
  publishJobName: boolean;
  /** `FLEET_LAN_URL`: where people open this workstation, shown in fleet views. */
  lanUrl: string | null;
}

export const DEFAULT_TOPIC_PREFIX = 'towpath/v1';
const WORKSTATION_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;
// Topic levels without the MQTT wildcards, the level separator at either end, or empty levels.
const TOPIC_PREFIX = /^[^/+#\s]+(?:\/[^/+#\s]+)*$/;

/** True for a host name that can only mean this PC. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

export function loadFleetConfig(read: EnvReader): FleetConfig | null {
  const brokerUrl = broker(read);
  if (brokerUrl === null) return null;
  const { workstationId, name } = workstationIdentity(read, 'FLEET_BROKER_URL');
  const topicPrefix = read.value('FLEET_TOPIC_PREFIX') ?? DEFAULT_TOPIC_PREFIX;
  if (!TOPIC_PREFIX.test(topicPrefix))
    throw invalid(
      'FLEET_TOPIC_PREFIX',
      topicPrefix,
      'FLEET_TOPIC_PREFIX must be topic levels separated by /, without +, # or spaces',
    );
  return {
    brokerUrl,
    workstationId,
    name,
    username: read.value('FLEET_USERNAME') ?? workstationId,
    password: read.value('FLEET_PASSWORD') ?? null,
    caFile: read.value('FLEET_CA_FILE') ?? null,
    tlsServername: read.value('FLEET_TLS_SERVERNAME') ?? null,
    topicPrefix,
    keepaliveSeconds: read.wholeIn('FLEET_KEEPALIVE_SECONDS', 30, 5, 300),
    minIntervalMs: read.wholeIn('FLEET_MIN_INTERVAL_MS', 1000, 250, 60_000),
    publishJobName: read.bool('FLEET_PUBLISH_JOB_NAME', true),
    lanUrl: lanUrl(read),
  };
}

/**
 * `FLEET_WORKSTATION_ID` and `FLEET_NAME`: one identity for every way this winder is seen from the
 * shop (the MQTT topic and the OPC UA serial number), required once `enabledBy` is set.
 */
export function workstationIdentity(
  read: EnvReader,
  enabledBy: string,
): { workstationId: string; name: string } {
  const workstationId = read.value('FLEET_WORKSTATION_ID');
  if (workstationId === undefined || !WORKSTATION_ID.test(workstationId))
    throw invalid(
      'FLEET_WORKSTATION_ID',
      workstationId,
      `FLEET_WORKSTATION_ID is required when ${enabledBy} is set: 1–32 of a-z, 0-9 and -, starting with a letter or digit`,
    );
  const name = read.value('FLEET_NAME') ?? workstationId;
  if (name.length > 64) throw invalid('FLEET_NAME', name, 'FLEET_NAME must be at most 64 characters');
  return { workstationId, name };
}

function broker(read: EnvReader): string | null {
  const raw = read.value('FLEET_BROKER_URL');
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('FLEET_BROKER_URL', raw, 'FLEET_BROKER_URL must be a URL such as mqtts://broker.shop:8883');
  }
  if (url.protocol !== 'mqtts:' && url.protocol !== 'mqtt:')
    throw invalid(
      'FLEET_BROKER_URL',
      raw,
      'FLEET_BROKER_URL must start with mqtts:// (or mqtt:// to this PC)',
    );
  if (url.hostname === '')
    throw invalid('FLEET_BROKER_URL', raw, 'FLEET_BROKER_URL must name the broker host');
  // The URL would otherwise be the one place a password is written down and then logged.
  if (url.username !== '' || url.password !== '')
    throw invalid(
      'FLEET_BROKER_URL',
      // Shown without the credentials it carried.
      `${url.protocol}//${url.host}`,
      'FLEET_BROKER_URL must not carry a user or password; use FLEET_USERNAME and FLEET_PASSWORD',
    );
  if (url.protocol === 'mqtt:' && !isLoopbackHost(url.hostname))
    throw invalid(
      'FLEET_BROKER_URL',
      raw,
      'FLEET_BROKER_URL must use mqtts:// (TLS) for a broker on another host; mqtt:// is only for one on this PC',
    );
  return `${url.protocol}//${url.host}`;
}

/** An http(s) address, without credentials, where people open this workstation. */
function lanUrl(read: EnvReader): string | null {
  const raw = read.value('FLEET_LAN_URL');
  if (raw === undefined) return null;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '')
      return url.href;
  } catch {}
  throw invalid(
    'FLEET_LAN_URL',
    raw,
    'FLEET_LAN_URL must be an http(s) address such as http://winder-1.local:4001/',
  );
}
