// The winding tools as the sidecar's combined MCP server builds them: configured from the
// environment by the core's own rules (WINDING_ALLOWED_ROOTS, TOWPATH_DATA_DIR or the OS default).
import { BridgeError } from '../../bridge/errors.ts';
import type { ExtraTools } from '../../bridge/mcp.ts';
import { ConfigError, type Env, loadConfig } from '../config/index.ts';
import { createPathPolicy } from '../http/paths.ts';
import { Slots } from '../winding/slots.ts';
import { windingTools } from './winding-tools.ts';

/**
 * The four tools, configured from the workstation's environment (the process's unless given); a
 * bad setting stops the server's start as INVALID_INPUT naming the variable.
 */
export async function workstationTools(env?: Env): Promise<ExtraTools> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new BridgeError('INVALID_INPUT', error.message);
    throw error;
  }
  return windingTools({
    policy: await createPathPolicy(config.winding.allowedRoots),
    // As on the winding door: at most 4 planner runs at once, the rest queue.
    planners: new Slots(4),
    dataDir: config.dataDir,
  });
}
