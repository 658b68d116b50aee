import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './index.ts';

const PASSWORD = 'a-long-opcua-password';
const base = { OPCUA_PORT: '4840', FLEET_WORKSTATION_ID: 'w01', OPCUA_PASSWORD: PASSWORD };

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('OPC UA configuration', () => {
  it('is off unless OPCUA_PORT is set, whatever else is', () => {
    expect(loadConfig({ FLEET_WORKSTATION_ID: 'w01', OPCUA_ALLOW_ANONYMOUS: '1' }).opcua).toBeNull();
  });

  it('listens on every address with SignAndEncrypt and the one user by default', () => {
    expect(loadConfig(base).opcua).toEqual({
      port: 4840,
      host: '0.0.0.0',
      workstationId: 'w01',
      name: 'w01',
      model: 'Filament winder',
      user: { name: 'towpath', password: PASSWORD },
      allowAnonymous: false,
    });
    expect(
      loadConfig({
        ...base,
        OPCUA_PORT: '0',
        OPCUA_HOST: '192.168.1.20',
        FLEET_NAME: 'Big winder',
        OPCUA_MODEL: 'FW-3000',
        OPCUA_USERNAME: 'scada',
      }).opcua,
    ).toMatchObject({
      port: 0,
      host: '192.168.1.20',
      name: 'Big winder',
      model: 'FW-3000',
      user: { name: 'scada', password: PASSWORD },
    });
  });

  it.each(['127.0.0.1', '::1', 'localhost'])(
    'allows anonymous clients on %s, with or without a user',
    (host) => {
      const { OPCUA_PASSWORD: _, ...withoutUser } = base;
      expect(
        loadConfig({ ...withoutUser, OPCUA_HOST: host, OPCUA_ALLOW_ANONYMOUS: '1' }).opcua,
      ).toMatchObject({ host, allowAnonymous: true, user: null });
      expect(loadConfig({ ...base, OPCUA_HOST: host, OPCUA_ALLOW_ANONYMOUS: 'true' }).opcua).toMatchObject({
        allowAnonymous: true,
        user: { name: 'towpath' },
      });
    },
  );

  it.each([
    [
      { OPCUA_ALLOW_ANONYMOUS: '1' },
      'invalid OPCUA_HOST="0.0.0.0": OPCUA_ALLOW_ANONYMOUS=1 needs OPCUA_HOST on this PC (127.0.0.1, ::1 or localhost); clients elsewhere sign in',
    ],
    [
      { OPCUA_ALLOW_ANONYMOUS: '1', OPCUA_HOST: '192.168.1.20' },
      'invalid OPCUA_HOST="192.168.1.20": OPCUA_ALLOW_ANONYMOUS=1 needs OPCUA_HOST on this PC (127.0.0.1, ::1 or localhost); clients elsewhere sign in',
    ],
    [
      { OPCUA_PASSWORD: '' },
      'invalid OPCUA_PASSWORD="": OPCUA_PASSWORD is required when OPCUA_PORT is set: clients sign in as OPCUA_USERNAME over an encrypted channel',
    ],
    [{ OPCUA_PASSWORD: 'short-pw' }, 'invalid OPCUA_PASSWORD: OPCUA_PASSWORD must be at least 12 characters'],
    [
      { FLEET_WORKSTATION_ID: '' },
      'invalid FLEET_WORKSTATION_ID="": FLEET_WORKSTATION_ID is required when OPCUA_PORT is set: 1–32 of a-z, 0-9 and -, starting with a letter or digit',
    ],
    [
      { OPCUA_PORT: '70000' },
      'invalid OPCUA_PORT="70000": OPCUA_PORT must be an integer between 0 and 65535',
    ],
    [{ OPCUA_HOST: 'a b' }, 'invalid OPCUA_HOST="a b": OPCUA_HOST must be a host name or an IP address'],
    [
      { OPCUA_ALLOW_ANONYMOUS: 'yes' },
      'invalid OPCUA_ALLOW_ANONYMOUS="yes": OPCUA_ALLOW_ANONYMOUS must be 1, true, 0 or false',
    ],
  ])('refuses %j in one line', (change, message) => {
    expect(refusal({ ...base, ...change })).toBe(message);
  });

  it('never shows the password it refuses', () => {
    expect(refusal({ ...base, OPCUA_PASSWORD: 'secret-7' })).not.toContain('secret-7');
  });
});
