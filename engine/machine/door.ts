// The machine door's addresses, headers and files: plain constants with no imports, so the
// smallest entry points (`towpath estop`, the desktop app's e-stop) can read them without loading
// zod or anything else. contract.ts re-exports all of it.

/**
 * Baud rates a connect request may ask for: the standard rates Marlin builds and USB serial
 * adapters use. The panel offers these, and the door refuses any other number before a port is
 * opened, so a mistyped rate never reaches the serial driver.
 */
export const BAUD_RATES = [
  9600, 19200, 38400, 57600, 115200, 230400, 250000, 460800, 500000, 921600, 1000000, 1500000, 2000000,
] as const;

/** Every machine route, relative to the door's origin. The machine door and the LAN door share them. */
export const MACHINE_ROUTES = {
  status: '/api/machine/status',
  events: '/api/machine/events',
  ports: '/api/machine/ports',
  connect: '/api/machine/connect',
  disconnect: '/api/machine/disconnect',
  /** The console: one line to the controller, answered with what it said up to its `ok`. */
  command: '/api/machine/command',
  /** Manual control, refused while a job runs or is paused: `G28`, a relative jog, `G92`, `M114`, `M18`. */
  home: '/api/machine/home',
  jog: '/api/machine/jog',
  zero: '/api/machine/zero',
  position: '/api/machine/position',
  motorsOff: '/api/machine/motors-off',
  job: '/api/machine/job',
  pause: '/api/machine/pause',
  resume: '/api/machine/resume',
  cancel: '/api/machine/cancel',
  estop: '/api/machine/estop',
  /**
   * A whole job in one request, answered when it ends: connects first if needed and disconnects
   * afterwards (the winding door's `/stream/` and `towpath stream` against a running workstation).
   */
  stream: '/api/machine/stream',
  /**
   * A new job that takes a stopped one up again from a checkpoint (a layer or circuit start): the
   * lead-in to it, then the program from the checkpoint's line.
   */
  resumeJob: '/api/machine/resume-job',
  /** A dry run: the program is checked (soft limits included) and counted, and recorded in the history. */
  dryRun: '/api/machine/dry-run',
  /** Machine profiles: GET lists them, POST creates one. */
  profiles: '/api/machine/profiles',
  /** One profile: GET, PUT (replaces it), DELETE. */
  profile: '/api/machine/profiles/:id',
  /** The job history, newest first (`?outcome=&since=&until=&limit=`; `format=csv` for CSV). */
  jobs: '/api/machine/jobs',
  /** The job history as CSV (the same filters). */
  jobsCsv: '/api/machine/jobs.csv',
  /** The running (or last) job's program text, whoever started it: a watcher draws the job, not its open file. */
  jobProgram: '/api/machine/job/program',
  /** The feed override (`M220 S<percent>`), taken while a job runs: it goes ahead of the job's next line. */
  feed: '/api/machine/feed',
  /** After an e-stop or a halt: the last connection's port opened again with `M999` first. */
  reset: '/api/machine/reset',
} as const;

/** The path of one profile's route. */
export function profilePath(id: number): string {
  return MACHINE_ROUTES.profile.replace(':id', String(id));
}

/**
 * LAN door only: where a client on the workstation finds the machine door (the renderer's e-stop
 * goes there directly, so it never waits on the core) — `url: null` to anyone else — and whether
 * this client may control the machine, decided by the rule the control routes apply.
 */
export const MACHINE_DOOR_INFO_ROUTE = '/api/machine/door';
export interface MachineDoorInfo {
  url: string | null;
  /** Start, pause, stop… are open to this client (on the workstation, or MACHINE_REMOTE_CONTROL=1). */
  control: boolean;
}

/**
 * Machine door only (not forwarded): the renderer's standing e-stop line, a WebSocket the page keeps
 * open while its button is on screen. The one message it takes is ESTOP_SOCKET_MESSAGE, answered
 * with the estop route's body; anything else closes the line (1008).
 */
export const ESTOP_SOCKET_ROUTE = '/api/machine/estop/socket';
export const ESTOP_SOCKET_MESSAGE = '{"type":"estop"}';

/** The machine process's own routes for the cores attached to it (not forwarded). */
export const MACHINE_PROCESS_ROUTES = {
  /** A core leaving on purpose: the machine process exits now if idle and no other core remains. */
  release: '/machine/release',
} as const;

/**
 * Sent by a core on its events stream: its pid (the stream is its attachment; the machine process
 * exits when no core has been attached and no job has run for a while) and the loopback origins of
 * its LAN door, which the machine door then allows with CORS.
 */
export const CORE_PID_HEADER = 'x-towpath-core';
export const CORE_ORIGINS_HEADER = 'x-towpath-core-origins';
/** On every machine-door answer: the sequence number of the last event before it was made. */
export const EVENT_SEQ_HEADER = 'x-machine-seq';

/** `<data dir>/machine.json`, mode 0600: where the running machine process listens. */
export const MACHINE_FILE = 'machine.json';
export interface MachineFile {
  pid: number;
  url: string;
}

/**
 * The e-stop's keyboard shortcut: shown on the renderer's button, handled by the page, and
 * registered system-wide by the desktop app (an Electron accelerator).
 */
export const ESTOP_SHORTCUT = {
  accelerator: 'CommandOrControl+Shift+E',
  /** As printed on the button. */
  label: 'Ctrl+Shift+E',
  /** As `aria-keyshortcuts` spells it. */
  aria: 'Control+Shift+E',
} as const;
