import { join } from 'node:path';
import { VERSION } from '../../bridge/version.ts';
import { ConfigError, loadConfig } from '../config/index.ts';
import { StartupError } from '../errors.ts';
import { CORE_LOG_FILE } from '../log.ts';
import { startWorkstation } from '../main.ts';
import { type Command, UsageError } from './io.ts';

/**
 * How long a stop may take before the command returns anyway. Planning is aborted and the doors
 * close at once; only a machine finishing its current line could take longer, and a stop must not
 * keep the process (and its ports) alive past 2 s.
 */
export const STOP_DEADLINE_MS = 1500;

export const serve: Command = {
  exitCode: (error) => (error instanceof ConfigError || error instanceof StartupError ? 1 : undefined),
  async run(args, io) {
    if (args.length > 0) {
      throw new UsageError(
        `serve takes no arguments (got '${args[0]}'); configure it with environment variables`,
      );
    }
    const config = loadConfig(io.env);
    // Listening for a stop before anything starts: a signal that arrives while the doors open (or
    // just after the "running" line) must stop the core, not kill it without cleaning up.
    let requested: ((reason: Record<string, unknown>) => void) | undefined;
    const stopRequest = new Promise<Record<string, unknown>>((resolve) => {
      requested = resolve;
    });
    const removers = [io.onStopSignal((signal) => requested?.({ signal }))];
    // Started by a terminal, npm or a supervisor that is gone: nobody can stop this core any more,
    // so it stops itself rather than keep serving as an orphan.
    if (config.exitWithParent && io.onParentExit)
      removers.push(io.onParentExit(() => requested?.({ reason: 'parent process exited' })));
    try {
      const workstation = await startWorkstation(config);
      // The terminal's lines for a person; the JSON log (with every request) is in the data dir.
      io.stderr(
        `Towpath ${VERSION} is running. Open ${workstation.urls.lan}/ ` +
          `(winding door ${workstation.urls.winding}). Press Ctrl-C to stop.\n`,
      );
      // A machine process that could not start has already said why, as an error line.
      if (workstation.machine.problem === undefined)
        io.stderr(`Machine process attached (machine door ${workstation.urls.machine}).\n`);
      io.stderr(`Log: ${join(workstation.dataDir, CORE_LOG_FILE)}\n`);
      // Dashboard spec §6.1: whoever creates the first admin must have seen this.
      const setupCode = workstation.dashboardApi.services.setupCode.current;
      if (setupCode) io.stderr(`First-run setup code: ${setupCode}\n`);
      workstation.logger.info(await stopRequest, 'stopping');
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([
        workstation.stop(),
        new Promise<void>((resolve) => {
          deadline = setTimeout(() => {
            workstation.logger.warn({ afterMs: STOP_DEADLINE_MS }, 'stop is taking too long; exiting anyway');
            resolve();
          }, STOP_DEADLINE_MS);
        }),
      ]);
      clearTimeout(deadline);
      io.stderr('Towpath stopped.\n');
      return 0;
    } finally {
      for (const remove of removers) remove();
    }
  },
};
