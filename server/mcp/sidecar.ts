// Entry of the sidecar executable (scripts/build-sidecar.ts bundles from here) and of its Node form,
// `node server/mcp/sidecar.ts …`: the bridge's CLI, whose `mcp` server also offers the workstation's
// winding tools after the 16 task tools. The tools load only for `mcp`, so other commands start
// as fast as the bridge alone.
import { isSea } from 'node:sea';
import { runProcess } from '../../bridge/command-line.ts';

runProcess(isSea() ? process.execPath : undefined, async () =>
  (await import('./workstation-tools.ts')).workstationTools(),
);
