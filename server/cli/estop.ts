// `towpath estop`: M112 now, through the machine process's own door, found in
// `<data dir>/machine.json`. It loads nothing else (no configuration schema, no core), so it starts
// as fast as Node does and never waits on a busy or frozen core.
import { dataDirOf } from '../config/data-dir-default.ts';
import { postEmergencyStop, readMachineFileSync } from '../machine/process/machine-file.ts';
import { type Command, UsageError } from './io.ts';

export const estop: Command = {
  async run(args, io) {
    const json = args.includes('--json');
    const unknown = args.find((arg) => arg !== '--json');
    if (unknown !== undefined) {
      throw new UsageError(`unknown option '${unknown}'`);
    }
    const dataDir = dataDirOf(io.env);
    const record = readMachineFileSync(dataDir);
    const fail = (detail: string) => {
      if (json) io.stdout(`${JSON.stringify({ sent: false, detail })}\n`);
      io.stderr(`towpath: ${detail}\n`);
      return 3;
    };
    if (!record) return fail(`no machine process is running for the data dir ${dataDir}`);
    let result: { sent: boolean; state: string };
    try {
      result = await postEmergencyStop(record.url);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return fail(`the machine process at ${record.url} did not take the e-stop (${reason})`);
    }
    if (json) io.stdout(`${JSON.stringify(result)}\n`);
    else
      io.stdout(
        result.sent
          ? 'Emergency stop sent (M112): the controller halts; reset it before the next job.\n'
          : 'No machine is connected: there was nothing to stop.\n',
      );
    return result.sent ? 0 : 1;
  },
};
