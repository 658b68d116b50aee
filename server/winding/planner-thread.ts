// A planner thread: runs the winding door's validate and plan operations (from-file.ts) off the
// core's main thread, one at a time, at the lowest CPU priority the OS gives a thread. Parsing a
// 60 MiB `.wind` or planning ten million lines is seconds of CPU; on the main thread it competed,
// at the same priority, with everything an operator waits on — the app window, the emergency
// stop's page, the machine process. planner-threads.ts starts these and talks to them.
import { spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { toHttpError } from '../http/http-error.ts';
import { createPathPolicy } from '../http/paths.ts';
import type { WindingContext } from './context.ts';
import { planFromFile, validateFromFile } from './from-file.ts';
import type { PlannerReply, PlannerRequest, PlannerThreadData } from './planner-threads.ts';
import { Slots } from './slots.ts';

const port = parentPort;
if (!port) throw new Error('planner-thread.ts runs as a worker thread (see planner-threads.ts)');

// On Linux a priority set with pid 0 is this thread's alone (elsewhere it would be the whole
// process's, the core's main thread included, so it is left alone there). Nice 19 gives the
// thread the smallest share of a busy CPU, but a thread that wakes (the machine process reading an
// `ok`, the browser handling a press) may still wait for the rest of its time slice. SCHED_IDLE
// lets any such thread take the CPU at once; Node has no call for it, so util-linux's chrt sets it
// on this thread's id. Without chrt (or where it is refused) nice 19 stands alone.
if (process.platform === 'linux') {
  try {
    setPriority(19);
    const thread = readlinkSync('/proc/thread-self').split('/').pop() as string;
    spawnSync('chrt', ['--idle', '--pid', '0', thread], { stdio: 'ignore', timeout: 2000 });
  } catch {
    // Not allowed here (a sandbox): the work still runs off the main thread.
  }
}

const { allowedRoots } = workerData as PlannerThreadData;
const policy = await createPathPolicy(allowedRoots);
let current: AbortController | undefined;
let folderNoted: ((error?: string) => void) | undefined;

const reply = (message: PlannerReply) => port.postMessage(message);

port.on('message', (message: PlannerRequest) => {
  if (message.type === 'abort') current?.abort(new Error(message.reason));
  else if (message.type === 'folder-noted') folderNoted?.(message.error);
  else void run(message);
});

async function run({ op, request }: Extract<PlannerRequest, { type: 'run' }>) {
  const controller = new AbortController();
  current = controller;
  const context: WindingContext = {
    policy,
    // The door's own planner slots count this run already.
    planners: new Slots(1),
    stopping: controller.signal,
    noteOutputFolder: (folder) =>
      new Promise<void>((resolve, reject) => {
        folderNoted = (error) => {
          folderNoted = undefined;
          if (error === undefined) resolve();
          else reject(new Error(error));
        };
        reply({ type: 'note-folder', folder });
      }),
  };
  try {
    const result =
      op === 'plan' ? await planFromFile(request, context) : await validateFromFile(request, context);
    reply({ type: 'done', result });
  } catch (error) {
    // Only what a door answers with crosses back: the status and the message.
    reply({
      type: 'failed',
      status: toHttpError(error)?.status,
      message: error instanceof Error ? error.message : String(error),
    });
  } finally {
    current = undefined;
  }
}
