import pkg from '../package.json' with { type: 'json' };

/** The running Towpath version, as `package.json` states it. */
export const VERSION: string = pkg.version;
