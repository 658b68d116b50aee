import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultDataDir, loadConfig } from './config.ts';

const linux = { platform: 'linux' as const, home: '/home/op' };

describe('loadConfig', () => {
  it('gives the documented defaults', () => {
    const config = loadConfig({}, linux);
    expect(config.lan).toEqual({ host: '0.0.0.0', port: 4001 });
    expect(config.winding).toEqual({ host: '127.0.0.1', port: 8000 });
    expect(config.dataDir).toBe('/home/op/.local/share/towpath');
    expect(config.logLevel).toBe('info');
    expect(config.machineRemoteControl).toBe(false);
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
        MACHINE_REMOTE_CONTROL: 'TRUE',
      },
      linux,
    );
    expect(config.lan).toEqual({ host: '127.0.0.1', port: 0 });
    expect(config.winding).toEqual({ host: '::1', port: 8123 });
    expect(config.dataDir).toBe('/srv/towpath');
    expect(config.logLevel).toBe('debug');
    expect(config.machineRemoteControl).toBe(true);
  });

  it('accepts API_HOST as an alias of HOST, HOST winning', () => {
    expect(loadConfig({ API_HOST: '10.0.0.5' }, linux).lan.host).toBe('10.0.0.5');
    expect(loadConfig({ API_HOST: '10.0.0.5', HOST: '127.0.0.1' }, linux).lan.host).toBe('127.0.0.1');
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', TOWPATH_DATA_DIR: '' }, linux)).toMatchObject({
      lan: { port: 4001 },
      dataDir: '/home/op/.local/share/towpath',
    });
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
    [
      'LOG_LEVEL',
      'loud',
      'invalid LOG_LEVEL="loud": LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ],
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
