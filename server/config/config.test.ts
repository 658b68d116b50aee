import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultDataDir, loadConfig } from './index.ts';

const linux = { platform: 'linux' as const, home: '/home/op' };

describe('loadConfig', () => {
  it('gives the documented defaults', () => {
    const config = loadConfig({}, linux);
    expect(config.lan).toEqual({ host: '0.0.0.0', port: 4001 });
    expect(config.publicUrl).toBeNull();
    expect(config.winding).toEqual({ host: '127.0.0.1', port: 8000, allowedRoots: ['/home/op', tmpdir()] });
    expect(config.dataDir).toBe('/home/op/.local/share/towpath');
    expect(config.logLevel).toBe('info');
    expect(config.logFormat).toBe('human');
    expect(config.machineRemoteControl).toBe(false);
    expect(config.machine).toEqual({ host: '127.0.0.1', port: 8002, portFixed: false, nice: -10 });
    expect(config.rendererDir.endsWith(join('dist', 'renderer'))).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        HOST: '127.0.0.1',
        PORT: '0',
        WINDING_HOST: '::1',
        WINDING_PORT: '8123',
        TOWPATH_DATA_DIR: '/srv/towpath',
        LOG_LEVEL: 'debug',
        LOG_FORMAT: 'json',
        MACHINE_REMOTE_CONTROL: 'TRUE',
        MACHINE_PORT: '0',
        MACHINE_NICE: ' 5 ',
      },
      linux,
    );
    expect(config.lan).toEqual({ host: '127.0.0.1', port: 0 });
    expect(config.winding).toMatchObject({ host: '::1', port: 8123 });
    expect(config.dataDir).toBe('/srv/towpath');
    expect(config.logLevel).toBe('debug');
    expect(config.logFormat).toBe('json');
    expect(config.machineRemoteControl).toBe(true);
    expect(config.machine).toEqual({ host: '127.0.0.1', port: 0, portFixed: true, nice: 5 });
  });

  it('accepts API_HOST as an alias of HOST, HOST winning', () => {
    expect(loadConfig({ API_HOST: '10.0.0.5' }, linux).lan.host).toBe('10.0.0.5');
    expect(loadConfig({ API_HOST: '10.0.0.5', HOST: '127.0.0.1' }, linux).lan.host).toBe('127.0.0.1');
  });

  it('reads PUBLIC_URL as an origin and refuses one with a path', () => {
    expect(loadConfig({ PUBLIC_URL: 'http://Winder.local:4001/' }, linux).publicUrl).toBe(
      'http://winder.local:4001',
    );
    expect(() => loadConfig({ PUBLIC_URL: 'http://winder.local/towpath' }, linux)).toThrow(
      'invalid PUBLIC_URL="http://winder.local/towpath": PUBLIC_URL must be an http(s) origin',
    );
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://winder.local' }, linux)).toThrow(ConfigError);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', TOWPATH_DATA_DIR: '' }, linux)).toMatchObject({
      lan: { port: 4001 },
      dataDir: '/home/op/.local/share/towpath',
    });
  });

  it('reads every section the same way: blank is unset, values are trimmed', () => {
    const blank = { PORT: '  ', MACHINE_REMOTE_CONTROL: '\t', USER_LIMIT: ' ' };
    const padded = { LOG_LEVEL: ' debug ', POLICY_EDIT_LOCK: ' TRUE ' };
    const config = loadConfig({ ...blank, ...padded }, linux);
    expect(config.lan.port).toBe(4001);
    expect(config.logLevel).toBe('debug');
    expect(config.machineRemoteControl).toBe(false);
    expect(config.api.userLimit).toBe(0);
    expect(config.api.policyEditLock).toBe(true);
  });

  it.each([
    ['PORT', 'abc', 'invalid PORT="abc": PORT must be an integer between 0 and 65535'],
    ['PORT', '65536', 'invalid PORT="65536": PORT must be an integer between 0 and 65535'],
    ['PORT', '-1', 'invalid PORT="-1": PORT must be an integer between 0 and 65535'],
    ['PORT', '80.5', 'invalid PORT="80.5": PORT must be an integer between 0 and 65535'],
    [
      'WINDING_PORT',
      '1e3',
      'invalid WINDING_PORT="1e3": WINDING_PORT must be an integer between 0 and 65535',
    ],
    ['HOST', 'a b', 'invalid HOST="a b": HOST must be a host name or an IP address'],
    [
      'MACHINE_REMOTE_CONTROL',
      'yes',
      'invalid MACHINE_REMOTE_CONTROL="yes": MACHINE_REMOTE_CONTROL must be 1, true, 0 or false',
    ],
    ['MACHINE_NICE', '-21', 'invalid MACHINE_NICE="-21": MACHINE_NICE must be an integer between -20 and 19'],
    [
      'MACHINE_NICE',
      'high',
      'invalid MACHINE_NICE="high": MACHINE_NICE must be an integer between -20 and 19',
    ],
    [
      'MACHINE_NICE',
      '-5.5',
      'invalid MACHINE_NICE="-5.5": MACHINE_NICE must be an integer between -20 and 19',
    ],
    [
      'LOG_LEVEL',
      'loud',
      'invalid LOG_LEVEL="loud": LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ],
    ['LOG_FORMAT', 'pretty', 'invalid LOG_FORMAT="pretty": LOG_FORMAT must be one of human, json'],
  ])('refuses %s=%s with one clear line', (name, value, message) => {
    let thrown: unknown;
    try {
      loadConfig({ [name]: value }, linux);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toBe(message);
  });
});

describe('defaultDataDir', () => {
  it('follows each OS convention for user data', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' }, linux)).toBe(join('/xdg', 'towpath'));
    expect(defaultDataDir({}, linux)).toBe(join('/home/op', '.local', 'share', 'towpath'));
    expect(defaultDataDir({}, { platform: 'darwin', home: '/Users/op' })).toBe(
      join('/Users/op', 'Library', 'Application Support', 'towpath'),
    );
    expect(
      defaultDataDir(
        { APPDATA: 'C:\\Users\\op\\AppData\\Roaming' },
        { platform: 'win32', home: 'C:\\Users\\op' },
      ),
    ).toBe(join('C:\\Users\\op\\AppData\\Roaming', 'towpath'));
  });
});

describe('loadConfig: dashboard API (spec §18)', () => {
  it('gives the documented defaults', () => {
    const { api, warnings } = loadConfig({}, linux);
    expect(api).toMatchObject({
      jwtExpirationSeconds: 7200,
      bootstrapAdmin: null,
      userLimit: 0,
      login: { maxAttempts: 5, ipMaxAttempts: 20, windowSeconds: 300, lockSeconds: 300 },
      trustProxyHops: 0,
      trustedProxies: ['127.0.0.0/8', '::1/128'],
      datasource: {
        mintUserPerMinute: 60,
        mintPublicIpPerMinute: 30,
        mintShareTokenPerMinute: 60,
        sessionTtlSeconds: 300,
      },
      gateway: {
        introspectionPerMinute: 600,
        revokedTokensPerMinute: 600,
        revokedTokensMaxBatch: 500,
        runtimeMetricsUrl: null,
      },
      revokeEventRetentionSeconds: 86400,
      policyEditLock: false,
      graphiql: false,
      corsOrigins: [],
      configuredSecrets: {},
    });
    expect(warnings).toEqual([]);
  });

  it('reads durations, flags, origins and the bootstrap admin', () => {
    const { api } = loadConfig(
      {
        JWT_TIME_EXPIRATION: '15m',
        CREATE_ADMIN: 'TRUE',
        ADMIN_EMAIL: ' Boss@Example.COM ',
        ADMIN_PASSWORD: 'Str0ng-password!',
        POLICY_EDIT_LOCK: '1',
        GRAPHIQL: '1',
        CORS_ORIGINS: 'http://a.example, http://b.example',
        API_TRUST_PROXY_HOPS: '2',
        TRUSTED_PROXIES: ' 10.0.0.5, 192.168.0.0/16 ,fd00::/8,',
        JWT_SECRET: 's'.repeat(32),
      },
      linux,
    );
    expect(api.jwtExpirationSeconds).toBe(900);
    expect(api.bootstrapAdmin).toEqual({ email: 'boss@example.com', password: 'Str0ng-password!' });
    expect([api.policyEditLock, api.graphiql, api.trustProxyHops]).toEqual([true, true, 2]);
    expect(api.corsOrigins).toEqual(['http://a.example', 'http://b.example']);
    expect(api.trustedProxies).toEqual(['10.0.0.5', '192.168.0.0/16', 'fd00::/8']);
    expect(api.configuredSecrets).toEqual({ JWT_SECRET: 's'.repeat(32) });
  });

  it('clamps out-of-range integers with a warning', () => {
    const { api, warnings } = loadConfig({ AUTH_LOGIN_MAX_ATTEMPTS: '0', JWT_TIME_EXPIRATION: '40d' }, linux);
    expect(api.login.maxAttempts).toBe(1);
    expect(api.jwtExpirationSeconds).toBe(30 * 86400);
    expect(warnings).toEqual([
      'JWT_TIME_EXPIRATION=3456000 is out of range (60–2592000); using 2592000',
      'AUTH_LOGIN_MAX_ATTEMPTS=0 is out of range (1–10000); using 1',
    ]);
  });

  it.each([
    [{ USER_LIMIT: '2.5' }, 'invalid USER_LIMIT="2.5": USER_LIMIT must be an integer'],
    [
      { API_TRUST_PROXY_HOPS: '17' },
      'invalid API_TRUST_PROXY_HOPS="17": API_TRUST_PROXY_HOPS must be an integer between 0 and 16',
    ],
    [
      { TRUSTED_PROXIES: '10.0.0.1, proxy.lan' },
      'invalid TRUSTED_PROXIES="10.0.0.1, proxy.lan": TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges ("proxy.lan" is neither)',
    ],
    [
      { TRUSTED_PROXIES: '10.0.0.0/33' },
      'invalid TRUSTED_PROXIES="10.0.0.0/33": TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges ("10.0.0.0/33" is neither)',
    ],
    [
      { TRUSTED_PROXIES: '[::1]:80' },
      'invalid TRUSTED_PROXIES="[::1]:80": TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges ("[::1]:80" is neither)',
    ],
    [
      { POLICY_EDIT_LOCK: 'yes' },
      'invalid POLICY_EDIT_LOCK="yes": POLICY_EDIT_LOCK must be 1, true, 0 or false',
    ],
    [
      { JWT_TIME_EXPIRATION: '2 hours' },
      'invalid JWT_TIME_EXPIRATION="2 hours": JWT_TIME_EXPIRATION must be seconds or a number followed by s, m, h or d',
    ],
    [{ CREATE_ADMIN: 'true' }, 'CREATE_ADMIN=true needs ADMIN_EMAIL'],
    [{ CREATE_ADMIN: 'true', ADMIN_EMAIL: 'a@b.cd' }, 'CREATE_ADMIN=true needs ADMIN_PASSWORD'],
    [
      { CREATE_ADMIN: 'true', ADMIN_EMAIL: 'nope', ADMIN_PASSWORD: 'Str0ng-password!' },
      'invalid ADMIN_EMAIL="nope": Invalid email address',
    ],
    [
      { CREATE_ADMIN: 'true', ADMIN_EMAIL: 'a@b.cd', ADMIN_PASSWORD: 'password' },
      'ADMIN_PASSWORD is too weak: Password must be at least 12 characters long and contain an uppercase letter, a lowercase letter, a digit and a symbol',
    ],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 bytes (got 5)'],
    [{ GATEWAY_SERVICE_TOKEN: 'x'.repeat(31) }, 'GATEWAY_SERVICE_TOKEN must be at least 32 bytes (got 31)'],
    [
      { CREDENTIAL_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') },
      'CREDENTIAL_ENCRYPTION_KEY must be 32 bytes encoded as base64',
    ],
    [
      { JWT_SECRET: 'k'.repeat(32), JWT_GATEWAY_SECRET: 'k'.repeat(32) },
      'JWT_GATEWAY_SECRET must differ from JWT_SECRET',
    ],
    [
      { GATEWAY_RUNTIME_METRICS_URL: 'ftp://x' },
      'invalid GATEWAY_RUNTIME_METRICS_URL="ftp://x": GATEWAY_RUNTIME_METRICS_URL must be an http(s) URL',
    ],
  ])('refuses %j with one clear line that never echoes a secret', (env, message) => {
    expect(() => loadConfig(env as Record<string, string>, linux)).toThrow(new ConfigError(message));
  });

  it('accepts base64url and base64 encryption keys of 32 bytes', () => {
    const key = Buffer.alloc(32, 7);
    for (const encoded of [key.toString('base64'), key.toString('base64url')]) {
      expect(
        loadConfig({ CREDENTIAL_ENCRYPTION_KEY: encoded }, linux).api.configuredSecrets
          .CREDENTIAL_ENCRYPTION_KEY,
      ).toBe(encoded);
    }
  });
});

describe('WINDING_ALLOWED_ROOTS', () => {
  it('splits on the path delimiter, trims, drops empty entries and resolves relative ones', () => {
    expect(
      loadConfig({ WINDING_ALLOWED_ROOTS: ' /srv/jobs :: relative/dir :/tmp ' }, linux).winding.allowedRoots,
    ).toEqual(['/srv/jobs', resolve('relative/dir'), '/tmp']);
  });

  it('falls back to home and the temp folder when unset or only delimiters', () => {
    expect(loadConfig({ WINDING_ALLOWED_ROOTS: ' : ' }, linux).winding.allowedRoots).toEqual([
      '/home/op',
      tmpdir(),
    ]);
  });
});
