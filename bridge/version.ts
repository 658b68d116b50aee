// The one Towpath version, as package.json states it: shown by --version, the doors' health and
// OpenAPI, User-Agents, MCP serverInfo and the desktop app. Here because the bridge may import only
// the engine, while the server and the desktop app may import the bridge.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
