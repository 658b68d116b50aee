// DESIGN.md's import rules, checked on every source file so the layering cannot drift silently.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = import.meta.dirname;
const AREAS = ['engine', 'server', 'bridge', 'renderer', 'electron', 'e2e', 'scripts'] as const;
type Area = (typeof AREAS)[number];

/** Which of our areas each area may import (besides itself). */
const ALLOWED: Record<Area, Area[]> = {
  engine: [],
  bridge: ['engine'],
  server: ['engine', 'bridge'],
  renderer: ['engine'],
  // The bridge for one constant: the version, defined where every Node layer can read it.
  electron: ['server', 'engine', 'bridge'],
  e2e: ['server', 'engine', 'bridge'],
  scripts: ['server', 'engine', 'bridge'],
};

/** Packages that must never be reachable from the pure engine (it also runs in the browser). */
const ENGINE_FORBIDDEN = /^(node:|electron$|fastify|@fastify\/|better-sqlite3|serialport|drizzle|pino)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Import {
  specifier: string;
  typeOnly: boolean;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  const pattern =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const specifier = match[3] ?? match[4];
    if (specifier) found.push({ specifier, typeOnly: Boolean(match[2]) });
  }
  return found;
}

/**
 * A specifier as a relative one when it names our code: the `#engine/*` alias of package.json's
 * "imports" is a path into engine/ and must meet the same rules as `../../engine/…`.
 */
function local(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return specifier;
  if (specifier.startsWith('#engine/'))
    return relative(dirname(file), join(ROOT, 'engine', specifier.slice('#engine/'.length))) || '.';
  return undefined;
}

function areaOf(path: string): string {
  return relative(ROOT, path).split(sep)[0] ?? '';
}

const isTest = (file: string) => /\.(test|spec)\.tsx?$/.test(file);

/** What the machine process runs, and what of the rest it may import directly (relative to the root). */
const MACHINE_PROCESS = join(ROOT, 'server', 'machine', 'process');
const MACHINE_PROCESS_SHARES = [
  'server/machine/process',
  'engine',
  'server/http',
  'server/log.ts',
  'server/config',
].map((path) => path.split('/').join(sep));

/** Every source file reached from `files` through relative imports (type-only ones included). */
function reachableFrom(files: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...files];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { specifier } of importsOf(file)) {
      const target = resolve(dirname(file), specifier);
      if (specifier.startsWith('.') && /\.tsx?$/.test(target)) queue.push(target);
    }
  }
  return seen;
}

describe('import rules (DESIGN.md)', () => {
  for (const area of AREAS) {
    it(`${area}/ imports only what it may`, () => {
      const problems: string[] = [];
      for (const file of sources(join(ROOT, area))) {
        for (const { specifier, typeOnly } of importsOf(file)) {
          const where = `${relative(ROOT, file)} → ${specifier}`;
          const path = local(file, specifier);
          if (path !== undefined) {
            const target = areaOf(resolve(dirname(file), path));
            if (target === area || !AREAS.includes(target as Area)) continue;
            if (target === 'e2e') problems.push(`${where} (nothing imports e2e)`);
            // The renderer may know the shape of the desktop API, nothing else of Electron.
            else if (area === 'renderer' && typeOnly && specifier.endsWith('electron/preload-api.ts'))
              continue;
            // Tests may borrow server test support to start real parts; the renderer's never import
            // server/ (they reach a core over HTTP, like the renderer itself).
            else if (
              area !== 'renderer' &&
              isTest(file) &&
              target === 'server' &&
              specifier.includes('/testing/')
            )
              continue;
            else if (!ALLOWED[area].includes(target as Area)) problems.push(where);
          } else if (area === 'engine' && !isTest(file) && ENGINE_FORBIDDEN.test(specifier)) {
            problems.push(`${where} (engine/ must stay pure and browser-safe)`);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('the machine process imports nothing of the core beyond what it shares', () => {
    // The machine process (server/machine/process/) runs apart from the core so that nothing the
    // core does delays an e-stop. Of our code it shares only the engine, the doors' HTTP kit, the
    // logger and the configuration; the core's side of the machine (link, spawn, forwarding) and
    // test support stay out of it. Its own tests may start it through the link.
    const problems: string[] = [];
    for (const file of sources(MACHINE_PROCESS).filter((file) => !isTest(file))) {
      for (const { specifier } of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = relative(ROOT, resolve(dirname(file), specifier));
        if (!MACHINE_PROCESS_SHARES.some((allowed) => target === allowed || target.startsWith(`${allowed}/`)))
          problems.push(`${relative(ROOT, file)} → ${specifier}`);
      }
    }
    expect(problems).toEqual([]);
    // Nor through what it shares: nothing it reaches is the core's side of the machine.
    const reached = reachableFrom(sources(MACHINE_PROCESS).filter((file) => !isTest(file)));
    const coreSide = [...reached].filter(
      (file) =>
        dirname(file) === join(ROOT, 'server', 'machine') ||
        file.includes(`${sep}machine${sep}testing${sep}`),
    );
    expect(coreSide.map((file) => relative(ROOT, file))).toEqual([]);
    expect(reached).toContain(join(ROOT, 'server', 'config', 'index.ts'));
  });

  it('the fleet publisher reaches nothing of the machine but the read-only feed', () => {
    // What the fleet module hears from the shop's broker must have no path to the machine: of our
    // code it may import only the `machine` datasource's feed, the configuration, the logger and the
    // version; of packages only MQTT, node-opcua (the OPC UA server in server/fleet/opcua) and Node's own.
    const fleet = join(ROOT, 'server', 'fleet');
    const shares = [
      'server/fleet',
      'server/gateway/realtime/machine-feed.ts',
      'server/config',
      'server/log.ts',
      'bridge/version.ts',
    ].map((path) => path.split('/').join(sep));
    // Its test support (a stand-in controller, a viewer) is for tests only and may reach further.
    const files = sources(fleet).filter((file) => !isTest(file) && !file.includes(`${sep}testing${sep}`));
    const problems: string[] = [];
    for (const file of files) {
      for (const { specifier } of importsOf(file)) {
        const path = local(file, specifier);
        const target = path === undefined ? undefined : relative(ROOT, resolve(dirname(file), path));
        const allowed =
          target === undefined
            ? /^(node:|mqtt$|node-opcua$)/.test(specifier)
            : shares.some((share) => target === share || target.startsWith(`${share}${sep}`));
        if (!allowed) problems.push(`${relative(ROOT, file)} → ${specifier}`);
      }
    }
    expect(problems).toEqual([]);
    // Nor through what it shares: nothing it reaches is the machine's link, process or host.
    const reached = [...reachableFrom(files)].map((file) => relative(ROOT, file));
    const machineSide = reached.filter(
      (file) =>
        file.startsWith(`${join('server', 'machine')}${sep}`) ||
        file === join('engine', 'machine', 'host.ts'),
    );
    expect(machineSide).toEqual([]);
    expect(reached).toContain(join('server', 'gateway', 'realtime', 'machine-feed.ts'));
  });

  it('the gateway takes the services from the composition root, not from GraphQL', () => {
    // GraphQL and the gateway are two transports over the same services (server/services.ts);
    // neither reaches into the other. Tests may still start a core through GraphQL's fixtures.
    const graphql = join(ROOT, 'server', 'graphql');
    const problems: string[] = [];
    for (const file of sources(join(ROOT, 'server', 'gateway')).filter((file) => !isTest(file))) {
      for (const { specifier } of importsOf(file)) {
        const target = resolve(dirname(file), specifier);
        if (specifier.startsWith('.') && (target === graphql || target.startsWith(`${graphql}${sep}`)))
          problems.push(`${relative(ROOT, file)} → ${specifier}`);
      }
    }
    expect(problems).toEqual([]);
    expect(importsOf(join(ROOT, 'server', 'gateway', 'embedded.ts'))).toContainEqual({
      specifier: '../services.ts',
      typeOnly: true,
    });
  });

  it('finds the imports it checks', () => {
    // Guards the checker itself: a regex that matched nothing would pass every rule above.
    const desktop = importsOf(join(ROOT, 'electron', 'desktop.ts')).map((i) => i.specifier);
    expect(desktop).toContain('../server/main.ts');
    expect(desktop).toContain('electron');
    expect(importsOf(join(ROOT, 'electron', 'preload.ts'))).toContainEqual({
      specifier: './preload-api.ts',
      typeOnly: false,
    });
  });
});
