import { ConfigError, loadConfig } from '../config.ts';
import { StartupError } from '../errors.ts';
import { startWorkstation } from '../main.ts';
import { VERSION } from '../version.ts';
import { type Command, UsageError } from './io.ts';

export const serve: Command = {
  exitCode: (error) => (error instanceof ConfigError || error instanceof StartupError ? 1 : undefined),
  async run(args, io) {
    if (args.length > 0) {
      throw new UsageError(
        `serve takes no arguments (got '${args[0]}'); configure it with environment variables`,
      );
    }
    const workstation = await startWorkstation(loadConfig(io.env));
    io.stderr(
      `Towpath ${VERSION} is running. Open ${workstation.urls.lan}/ ` +
        `(winding door ${workstation.urls.winding}). Press Ctrl-C to stop.\n`,
    );
    // Dashboard spec §6.1: whoever creates the first admin must have seen this.
    const setupCode = workstation.dashboardApi.services.setupCode.current;
    if (setupCode) io.stderr(`First-run setup code: ${setupCode}\n`);
    await new Promise<void>((resolve) => {
      const remove = io.onStopSignal((signal) => {
        remove();
        workstation.logger.info({ signal }, 'stopping');
        workstation.stop().then(resolve, resolve);
      });
    });
    return 0;
  },
};
