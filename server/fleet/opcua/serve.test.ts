// `towpath serve` with and without OPC UA: node-opcua is not even loaded unless OPCUA_PORT is set;
// an anonymous endpoint opens on loopback when asked for, and is refused in one line anywhere else.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { AttributeIds } from 'node-opcua';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../engine/testing/eventually.ts';
import { REPO_ROOT, type Running, runNode, startNode } from '../../testing/process.ts';
import { makeTempDir } from '../../testing/workstation.ts';
import { anonymousClient } from './testing/anonymous-client.ts';

const TRACER = pathToFileURL(join(REPO_ROOT, 'server', 'testing', 'trace-modules.ts')).href;

const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.child.kill('SIGKILL');
});

/** `towpath serve` on loopback with a fresh data dir, recording the modules it loads. */
async function serve(env: Record<string, string>) {
  const dir = await makeTempDir();
  const dataDir = join(dir, 'data');
  const trace = join(dir, 'modules.txt');
  const r = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    MACHINE_PORT: '0',
    TOWPATH_DATA_DIR: dataDir,
    NODE_OPTIONS: `--import=${TRACER}`,
    TOWPATH_TRACE_MODULES: trace,
    ...env,
  });
  running.push(r);
  await r.waitFor(/is running\./);
  const log = () => readFile(join(dataDir, 'towpath.log'), 'utf8');
  /** Stops it with SIGTERM and returns its exit code and whether it loaded node-opcua. */
  const stop = async () => {
    r.child.kill('SIGTERM');
    const { code } = await r.finished;
    const modules = await readFile(trace, 'utf8');
    return { code, loadedOpcua: modules.includes('/node_modules/node-opcua') };
  };
  return { dir, log, stop };
}

describe('towpath serve and OPC UA', () => {
  it('does not load node-opcua when OPCUA_PORT is unset', async () => {
    const core = await serve({});
    expect(await core.log()).not.toContain('opcua');
    expect(await core.stop()).toEqual({ code: 0, loadedOpcua: false });
  }, 60_000);

  it('is not loaded by the Electron main process either, until the server starts', async () => {
    // Bundled as scripts/build-electron.ts bundles it (packages stay in node_modules): a static
    // import of node-opcua anywhere on the way would be hoisted to the top of the bundle.
    const outfile = join(await makeTempDir(), 'main.js');
    await build({
      entryPoints: [join(REPO_ROOT, 'electron', 'main.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    const bundle = await readFile(outfile, 'utf8');
    expect(bundle.match(/^import\b[^;]*["']node-opcua["']/gm)).toBeNull();
    expect(bundle.match(/\bimport\(\s*["']node-opcua["']\s*\)/g)).toHaveLength(1);
  });

  it('serves anonymous, unencrypted clients on loopback when OPCUA_ALLOW_ANONYMOUS=1', async () => {
    const core = await serve({
      OPCUA_PORT: '0',
      OPCUA_HOST: '127.0.0.1',
      OPCUA_ALLOW_ANONYMOUS: '1',
      FLEET_WORKSTATION_ID: 'bench-3',
    });
    let endpoint = '';
    await eventually(async () => {
      endpoint = /opcua\.listening at (opc\.tcp:\/\/\S+)"/.exec(await core.log())?.[1] ?? '';
      return endpoint !== '';
    }, 30_000);
    const { session, close } = await anonymousClient(endpoint, join(core.dir, 'client-pki'));
    try {
      const lines = await session.read({
        nodeId: 'ns=1;s=bench-3.LinesTotal',
        attributeId: AttributeIds.Value,
      });
      expect(lines.value.value).toBe(0);
      const state = await session.read({ nodeId: 'ns=1;s=bench-3.Status', attributeId: AttributeIds.Value });
      expect(state.value.value).toBe('disconnected');
    } finally {
      await close();
    }
    expect(await core.stop()).toEqual({ code: 0, loadedOpcua: true });
  }, 60_000);

  it('refuses to start, in one line, with anonymous clients allowed off loopback', async () => {
    const result = await runNode('server/cli.ts', ['serve'], {
      OPCUA_PORT: '4840',
      OPCUA_ALLOW_ANONYMOUS: '1',
      FLEET_WORKSTATION_ID: 'w01',
      TOWPATH_DATA_DIR: join(await makeTempDir(), 'data'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'towpath: invalid OPCUA_HOST="0.0.0.0": OPCUA_ALLOW_ANONYMOUS=1 needs OPCUA_HOST on this PC (127.0.0.1, ::1 or localhost); clients elsewhere sign in\n',
    );
  });
});
