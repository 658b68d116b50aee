// The task bridge: the MCP server's overhead on get_task over a direct host call, and
// `tasks list --limit 20` against 100,000 tasks beside the host's own time. Figures, targets and
// method: scripts/bench/README.md.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeHost } from '../../../bridge/fake-host/server.ts';
import { connectMcp } from '../../../bridge/testing/run-bridge.ts';
import { type Bench, bestAndMedian, reportTimes } from '../support/report.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SIDECAR = `${ROOT}dist/sidecar/towpath-bridge`;
const RUNS = 9;

function median(values: number[]): number {
  return bestAndMedian(values).median;
}

function getJson(url: string, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { Accept: 'application/json' } }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
      .on('error', reject);
  });
}

export const bench: Bench = async (report) => {
  const host = await startFakeHost({ version: '18.10.0', seed: 'clean' });
  const agent = new http.Agent({ keepAlive: true });
  try {
    const { client } = await connectMcp(process.execPath, ['bridge/cli.ts', 'mcp'], {
      TASK_HOST_URL: host.url,
    });
    const rounds = 400;
    const viaMcp: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < 50; i++) await client.callTool({ name: 'get_task', arguments: { id: 't1' } }); // warm-up
    for (let i = 0; i < rounds; i++) {
      let t0 = performance.now();
      await client.callTool({ name: 'get_task', arguments: { id: 't1' } });
      viaMcp.push(performance.now() - t0);
      t0 = performance.now();
      await getJson(`${host.url}/tasks/t1`, agent);
      direct.push(performance.now() - t0);
    }
    await client.close();
    report('bridge.mcp.get_task.median', 'ms', median(viaMcp), null);
    report('bridge.host.get_task.median', 'ms', median(direct), null);
    report('bridge.mcp.get_task.overhead', 'ms', median(viaMcp) - median(direct), 1);
  } finally {
    await host.close();
  }

  // `towpath-bridge` (bin/towpath-bridge.mjs) runs its bundle while that is fresh: build it, so the
  // figure is the built form's.
  await promisify(execFile)(process.execPath, ['scripts/build-cli.ts'], { cwd: ROOT });
  const big = await startFakeHost({ version: '18.10.0', seed: 'big:100000' });
  const front = await answerFromMemory(big.url);
  try {
    // Medians of several runs: one process start is easily disturbed on a shared 2-core machine.
    await getJson(`${front.url}/tasks`, agent); // fills the cache
    const hostTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await getJson(`${front.url}/tasks`, agent);
      hostTimes.push(performance.now() - t0);
    }
    const wall = async (command: string, args: string[]) => {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await promisify(execFile)(command, [...args, 'tasks', 'list', '--limit', '20'], {
          cwd: ROOT,
          env: { TASK_HOST_URL: front.url, HOME: '/nonexistent' },
          maxBuffer: 1 << 20,
        });
        times.push(performance.now() - t0);
      }
      return times;
    };
    // The host's own answer to GET /tasks (100,000 tasks) beside the whole CLI process, and the
    // CLI's own share: its best less the best of Node starting an empty .mjs module (the base) and
    // the host's best, beside 150 ms. The base and the CLI get a warm-up run first.
    reportTimes(report, 'bridge.host.tasks_100k.response', hostTimes, 30);
    const scratch = mkdtempSync(join(tmpdir(), 'towpath-bench-bridge-'));
    try {
      const empty = join(scratch, 'empty.mjs');
      writeFileSync(empty, 'export {};\n');
      const base = await spawnTimes([empty]);
      await wall(process.execPath, ['bin/towpath-bridge.mjs']);
      const cli = await wall(process.execPath, ['bin/towpath-bridge.mjs']);
      reportTimes(report, 'bridge.node_empty_mjs', base, null);
      reportTimes(report, 'bridge.cli.tasks_list_limit20_100k.wall', cli, 400);
      report(
        'bridge.cli.tasks_list_limit20_100k.over_base_and_host',
        'ms',
        bestAndMedian(cli).best - bestAndMedian(base).best - bestAndMedian(hostTimes).best,
        150,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    // The shipped form, when `npm run build:sidecar` has produced it (the bench does not build).
    if (existsSync(SIDECAR))
      reportTimes(report, 'bridge.sidecar.tasks_list_limit20_100k.wall', await wall(SIDECAR, []), 400);
  } finally {
    agent.destroy();
    front.server.close();
    await big.close();
  }
};

/** Wall times of `node <args>` (after one warm-up run), as the CLI's are taken. */
async function spawnTimes(args: string[]): Promise<number[]> {
  await promisify(execFile)(process.execPath, args);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await promisify(execFile)(process.execPath, args);
    times.push(performance.now() - t0);
  }
  return times;
}

/**
 * The fake host behind a cache of whole answers (status, type, bytes) per request line. The fake
 * host builds its 100,000-task answer anew for every request (hundreds of ms); the task app keeps
 * its list in memory and answers within 30 ms. Answering from memory puts the CLI's own time, not
 * the fake host's, in the figure; the host's time is reported beside it.
 */
async function answerFromMemory(origin: string): Promise<{ url: string; server: http.Server }> {
  const answers = new Map<string, { status: number; type: string; body: Buffer }>();
  const server = http.createServer((request, response) => {
    const key = `${request.method} ${request.url}`;
    const cached = answers.get(key);
    const send = (answer: { status: number; type: string; body: Buffer }) =>
      response
        .writeHead(answer.status, { 'content-type': answer.type, 'content-length': answer.body.length })
        .end(answer.body);
    if (cached) return send(cached);
    fetch(`${origin}${request.url}`, { method: request.method ?? 'GET' })
      .then(async (upstream) => {
        const answer = {
          status: upstream.status,
          type: upstream.headers.get('content-type') ?? 'application/json',
          body: Buffer.from(await upstream.arrayBuffer()),
        };
        answers.set(key, answer);
        send(answer);
      })
      .catch(() => response.writeHead(502).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server };
}
