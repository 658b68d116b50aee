// Test support, loaded with `node --import`: records every module the process loads (ES modules,
// CommonJS and JSON alike) and writes their URLs, one per line, to TOWPATH_TRACE_MODULES at exit.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = new Set<string>();
registerHooks({
  load(url, context, next) {
    loaded.add(url);
    return next(url, context);
  },
});
process.on('exit', () => {
  const out = process.env.TOWPATH_TRACE_MODULES;
  if (out) writeFileSync(out, [...loaded].join('\n'));
});
