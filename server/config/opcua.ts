// The read-only OPC UA server's settings: off unless OPCUA_PORT is set. By default clients must sign
// and encrypt and sign in as the one configured user; an anonymous, unencrypted endpoint exists only
// when asked for and only on loopback, where nobody off this PC can reach it.
import { ConfigError, type EnvReader, invalid } from './env.ts';
import { isLoopbackHost, workstationIdentity } from './fleet.ts';

export interface OpcuaConfig {
  /** `OPCUA_PORT`: the TCP port (4840 is OPC UA's registered one); 0 = any free port. */
  port: number;
  /** `OPCUA_HOST`: the address to listen on; all of them by default, as a shop's SCADA is elsewhere. */
  host: string;
  /** `FLEET_WORKSTATION_ID`: the machine's serial number in its Identification. */
  workstationId: string;
  /** `FLEET_NAME`: the machine object's name under Machines. */
  name: string;
  /** `OPCUA_MODEL`: the Identification's Model. */
  model: string;
  /** `OPCUA_USERNAME`, `OPCUA_PASSWORD`: the one user a SignAndEncrypt session signs in as; null = none. */
  user: { name: string; password: string } | null;
  /** `OPCUA_ALLOW_ANONYMOUS=1`: also an unencrypted endpoint without sign-in; loopback only. */
  allowAnonymous: boolean;
}

export const DEFAULT_OPCUA_USERNAME = 'towpath';
export const DEFAULT_OPCUA_MODEL = 'Filament winder';
const MIN_PASSWORD = 12;

export function loadOpcuaConfig(read: EnvReader): OpcuaConfig | null {
  if (read.value('OPCUA_PORT') === undefined) return null;
  const port = read.wholeIn('OPCUA_PORT', 4840, 0, 65535);
  const host = read.value('OPCUA_HOST') ?? '0.0.0.0';
  if (!/^[A-Za-z0-9.:[\]%-]+$/.test(host))
    throw invalid('OPCUA_HOST', host, 'OPCUA_HOST must be a host name or an IP address');
  const { workstationId, name } = workstationIdentity(read, 'OPCUA_PORT');
  const model = read.value('OPCUA_MODEL') ?? DEFAULT_OPCUA_MODEL;
  if (model.length > 64) throw invalid('OPCUA_MODEL', model, 'OPCUA_MODEL must be at most 64 characters');
  const allowAnonymous = read.bool('OPCUA_ALLOW_ANONYMOUS', false);
  // Anyone on the shop's network could read the machine without a trace of who they were.
  if (allowAnonymous && !isLoopbackHost(host))
    throw invalid(
      'OPCUA_HOST',
      host,
      'OPCUA_ALLOW_ANONYMOUS=1 needs OPCUA_HOST on this PC (127.0.0.1, ::1 or localhost); clients elsewhere sign in',
    );
  const password = read.value('OPCUA_PASSWORD');
  if (password !== undefined && password.length < MIN_PASSWORD)
    // The value itself is never echoed.
    throw new ConfigError(
      `invalid OPCUA_PASSWORD: OPCUA_PASSWORD must be at least ${MIN_PASSWORD} characters`,
    );
  if (password === undefined && !allowAnonymous)
    throw invalid(
      'OPCUA_PASSWORD',
      undefined,
      'OPCUA_PASSWORD is required when OPCUA_PORT is set: clients sign in as OPCUA_USERNAME over an encrypted channel',
    );
  const username = read.value('OPCUA_USERNAME') ?? DEFAULT_OPCUA_USERNAME;
  if (username.length > 64)
    throw invalid('OPCUA_USERNAME', username, 'OPCUA_USERNAME must be at most 64 characters');
  return {
    port,
    host,
    workstationId,
    name,
    model,
    user: password === undefined ? null : { name: username, password },
    allowAnonymous,
  };
}
