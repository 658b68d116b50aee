import { describe, expect, it } from 'vitest';
import { fleetSettings } from '../fleet/testing/settings.ts';
import { runNode } from '../testing/process.ts';
import { ConfigError, loadConfig } from './index.ts';

const base = { FLEET_WORKSTATION_ID: 'w01' };

describe('fleet configuration', () => {
  it('is off unless FLEET_BROKER_URL is set', () => {
    expect(loadConfig({ ...base }).fleet).toBeNull();
  });

  it('reads the broker, identity and limits, with the documented defaults', () => {
    // The fixture states the defaults: name and username the id, prefix towpath/v1, keepalive 30 s,
    // one message a second, job names published, no password, CA or LAN address.
    expect(loadConfig({ ...base, FLEET_BROKER_URL: 'mqtts://broker.shop:8883' }).fleet).toEqual(
      fleetSettings('mqtts://broker.shop:8883', 'w01'),
    );
    expect(
      loadConfig({
        FLEET_BROKER_URL: 'mqtt://127.0.0.1:1883',
        FLEET_WORKSTATION_ID: 'winder-7',
        FLEET_NAME: 'Big winder',
        FLEET_USERNAME: 'svc-winder-7',
        FLEET_PASSWORD: 'a long random password',
        FLEET_CA_FILE: '/etc/towpath/shop-ca.pem',
        FLEET_TLS_SERVERNAME: 'broker.shop',
        FLEET_TOPIC_PREFIX: 'acme/plant1/towpath/v1',
        FLEET_KEEPALIVE_SECONDS: '5',
        FLEET_MIN_INTERVAL_MS: '250',
        FLEET_PUBLISH_JOB_NAME: '0',
        FLEET_LAN_URL: 'http://winder-7.local:4001/',
      }).fleet,
    ).toEqual({
      brokerUrl: 'mqtt://127.0.0.1:1883',
      workstationId: 'winder-7',
      name: 'Big winder',
      username: 'svc-winder-7',
      password: 'a long random password',
      caFile: '/etc/towpath/shop-ca.pem',
      tlsServername: 'broker.shop',
      topicPrefix: 'acme/plant1/towpath/v1',
      keepaliveSeconds: 5,
      minIntervalMs: 250,
      publishJobName: false,
      lanUrl: 'http://winder-7.local:4001/',
    });
  });

  it.each(['mqtt://localhost:1883', 'mqtt://127.0.0.2', 'mqtt://[::1]:1883'])(
    'allows plain %s (this PC)',
    (url) => {
      expect(loadConfig({ ...base, FLEET_BROKER_URL: url }).fleet?.brokerUrl).toBe(url.replace(/\/$/, ''));
    },
  );

  it.each([
    [
      { FLEET_BROKER_URL: 'mqtt://broker.shop:1883' },
      'invalid FLEET_BROKER_URL="mqtt://broker.shop:1883": FLEET_BROKER_URL must use mqtts:// (TLS) for a broker on another host; mqtt:// is only for one on this PC',
    ],
    [
      { FLEET_BROKER_URL: 'mqtt://10.0.0.5' },
      'invalid FLEET_BROKER_URL="mqtt://10.0.0.5": FLEET_BROKER_URL must use mqtts:// (TLS) for a broker on another host; mqtt:// is only for one on this PC',
    ],
    [
      { FLEET_BROKER_URL: 'https://broker.shop' },
      'invalid FLEET_BROKER_URL="https://broker.shop": FLEET_BROKER_URL must start with mqtts:// (or mqtt:// to this PC)',
    ],
    [
      { FLEET_BROKER_URL: 'mqtts://w01:hunter2@broker.shop' },
      'invalid FLEET_BROKER_URL="mqtts://broker.shop": FLEET_BROKER_URL must not carry a user or password; use FLEET_USERNAME and FLEET_PASSWORD',
    ],
    [
      { FLEET_BROKER_URL: 'mqtts://broker.shop', FLEET_WORKSTATION_ID: '' },
      'invalid FLEET_WORKSTATION_ID="": FLEET_WORKSTATION_ID is required when FLEET_BROKER_URL is set: 1–32 of a-z, 0-9 and -, starting with a letter or digit',
    ],
    [
      { FLEET_BROKER_URL: 'mqtts://broker.shop', FLEET_WORKSTATION_ID: 'w/+' },
      'invalid FLEET_WORKSTATION_ID="w/+": FLEET_WORKSTATION_ID is required when FLEET_BROKER_URL is set: 1–32 of a-z, 0-9 and -, starting with a letter or digit',
    ],
    [
      { FLEET_BROKER_URL: 'mqtts://broker.shop', FLEET_TOPIC_PREFIX: 'towpath/#' },
      'invalid FLEET_TOPIC_PREFIX="towpath/#": FLEET_TOPIC_PREFIX must be topic levels separated by /, without +, # or spaces',
    ],
    [
      { FLEET_BROKER_URL: 'mqtts://broker.shop', FLEET_KEEPALIVE_SECONDS: '2' },
      'invalid FLEET_KEEPALIVE_SECONDS="2": FLEET_KEEPALIVE_SECONDS must be an integer between 5 and 300',
    ],
    [
      { FLEET_BROKER_URL: 'mqtts://broker.shop', FLEET_MIN_INTERVAL_MS: '100' },
      'invalid FLEET_MIN_INTERVAL_MS="100": FLEET_MIN_INTERVAL_MS must be an integer between 250 and 60000',
    ],
  ])('refuses %j with one line', (env, message) => {
    const load = () => loadConfig({ ...base, ...env });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
  });

  it('never echoes a password given in the broker URL', () => {
    try {
      loadConfig({ ...base, FLEET_BROKER_URL: 'mqtts://w01:s3cret-pass@broker.shop:8883' });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain('s3cret-pass');
    }
  });

  it('stops `towpath serve` in one line, exit 1, for mqtt:// to another host', async () => {
    const result = await runNode('server/cli.ts', ['serve'], {
      FLEET_BROKER_URL: 'mqtt://broker.shop:1883',
      FLEET_WORKSTATION_ID: 'w01',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'towpath: invalid FLEET_BROKER_URL="mqtt://broker.shop:1883": FLEET_BROKER_URL must use mqtts:// (TLS) for a broker on another host; mqtt:// is only for one on this PC\n',
    );
  });
});
