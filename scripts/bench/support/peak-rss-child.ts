// Loaded into a measured command with `node --import` (scripts/bench/suites/startup.ts): at exit, writes
// the process's peak resident memory in KiB to TOWPATH_BENCH_RSS_OUT. VmHWM on Linux belongs to
// this process image alone (getrusage's maxrss would carry the forking parent's); elsewhere maxRSS.
import { readFileSync, writeFileSync } from 'node:fs';

process.on('exit', () => {
  const out = process.env.TOWPATH_BENCH_RSS_OUT;
  if (!out) return;
  let kib = process.resourceUsage().maxRSS;
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match?.[1]) kib = Number(match[1]);
  } catch {
    // not Linux
  }
  writeFileSync(out, String(kib));
});
