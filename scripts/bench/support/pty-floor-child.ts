// The PTY's round-trip floor from a process of its own (pty-floor.ts startFloorProcess): usage
// pty-floor-child.ts <port path>; for each number of lines read on stdin, measures the floor over
// that many lines and prints lines/s on one line. One long-lived process, so every measurement
// but the first runs warm, as the machine process's jobs do.
import { createInterface } from 'node:readline';
import { roundTripFloor } from './pty-floor.ts';

const [path] = process.argv.slice(2);
if (!path) {
  process.stderr.write('usage: pty-floor-child.ts <port path>\n');
  process.exit(2);
}
for await (const line of createInterface({ input: process.stdin })) {
  const lines = Number(line);
  if (!(lines > 0)) {
    process.stderr.write(`not a number of lines: ${line}\n`);
    process.exit(2);
  }
  process.stdout.write(`${await roundTripFloor(path, lines)}\n`);
}
