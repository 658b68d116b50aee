// Test support: fleet settings as loadConfig would give them for a broker and workstation id, with
// the defaults of the configuration and whatever a test changes.
import type { FleetConfig } from '../../config/fleet.ts';

export function fleetSettings(
  brokerUrl: string,
  workstationId: string,
  overrides: Partial<FleetConfig> = {},
): FleetConfig {
  return {
    brokerUrl,
    workstationId,
    name: workstationId,
    username: workstationId,
    password: null,
    caFile: null,
    tlsServername: null,
    topicPrefix: 'towpath/v1',
    keepaliveSeconds: 30,
    minIntervalMs: 1000,
    publishJobName: true,
    lanUrl: null,
    ...overrides,
  };
}
