// One source for the version shown by --version, the User-Agent and MCP serverInfo.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
