// Entry of the single executable (scripts/build-sidecar.ts bundles from here): the CLI, told the
// executable's own path so print-config and configure can point MCP clients at it.
import { isSea } from 'node:sea';
import { runProcess } from './cli.ts';

runProcess(isSea() ? process.execPath : undefined);
