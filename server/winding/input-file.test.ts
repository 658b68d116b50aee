import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulationError, WindFileError } from '../../engine/errors.ts';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import {
  type InputKind,
  MAX_INPUT_BYTES,
  openInputFile,
  osErrorReason,
  readInputFile,
  readWindDefinition,
} from './input-file.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'towpath-input-'));
  chmodSync(dir, 0o755);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function failure(path: string, kind: InputKind): Promise<WindFileError | SimulationError> {
  try {
    await readInputFile(path, kind);
  } catch (error) {
    expect(error).toBeInstanceOf(kind === 'wind' ? WindFileError : SimulationError);
    return error as WindFileError | SimulationError;
  }
  throw new Error(`read ${path} without error`);
}

const reading = {
  wind: (path: string, reason: string) => `Could not read wind definition at ${path}: ${reason}`,
  gcode: (path: string, reason: string) => `Could not read G-code at ${path}: ${reason}`,
};

describe('readInputFile', () => {
  it('reads a regular file, following symlinks', async () => {
    const file = join(dir, 'part.wind');
    writeFileSync(file, '{"x": 1}');
    symlinkSync(file, join(dir, 'link.wind'));
    expect(new TextDecoder().decode(await readInputFile(file, 'wind'))).toBe('{"x": 1}');
    expect(new TextDecoder().decode(await readInputFile(join(dir, 'link.wind'), 'gcode'))).toBe('{"x": 1}');
  });

  it('reports a missing file with the path exactly as given', async () => {
    const relative = join(dir, 'sub', '..', 'nothing.wind');
    const wind = await failure(relative, 'wind');
    expect(wind.message).toBe(`No wind definition found at ${relative}`);
    expect(wind.missing).toBe(true);
    const gcode = await failure(relative, 'gcode');
    expect(gcode.message).toBe(`No file found at ${relative}`);
    expect(gcode.missing).toBe(true);
  });

  it('treats a dangling symlink and a path through a file as missing', async () => {
    symlinkSync(join(dir, 'gone'), join(dir, 'dangling.wind'));
    expect((await failure(join(dir, 'dangling.wind'), 'wind')).missing).toBe(true);
    writeFileSync(join(dir, 'plain'), 'x');
    expect((await failure(join(dir, 'plain', 'child.wind'), 'gcode')).missing).toBe(true);
  });

  it('rejects directories, devices and FIFOs as not regular files', async () => {
    const folder = join(dir, 'folder.wind');
    mkdirSync(folder);
    symlinkSync(folder, join(dir, 'folder-link'));
    const fifo = join(dir, 'pipe.gcode');
    execFileSync('mkfifo', [fifo]);
    for (const path of [folder, join(dir, 'folder-link'), '/dev/null', fifo]) {
      const wind = await failure(path, 'wind');
      expect(wind.message).toBe(reading.wind(path, 'not a regular file'));
      expect(wind.missing).toBe(false);
      expect((await failure(path, 'gcode')).message).toBe(reading.gcode(path, 'not a regular file'));
    }
  });

  it('rejects files larger than 64 MiB and accepts exactly 64 MiB', async () => {
    const big = join(dir, 'big.gcode');
    writeFileSync(big, '');
    truncateSync(big, MAX_INPUT_BYTES + 1);
    expect((await failure(big, 'gcode')).message).toBe(reading.gcode(big, 'file is larger than 64 MB'));
    expect((await failure(big, 'wind')).message).toBe(reading.wind(big, 'file is larger than 64 MB'));
    truncateSync(big, MAX_INPUT_BYTES);
    const stream = await openInputFile(big, 'gcode');
    expect(stream.size).toBe(67_108_864);
    await stream.close();
  });

  it('takes a limit of its own: a smaller one refuses with its size, none reads past 64 MiB', async () => {
    const file = join(dir, 'limited.gcode');
    writeFileSync(file, '');
    truncateSync(file, 1024 * 1024 + 1);
    const refused = openInputFile(file, 'gcode', file, { maxBytes: 1024 * 1024 });
    await expect(refused).rejects.toThrow(reading.gcode(file, 'file is larger than 1 MB'));
    truncateSync(file, MAX_INPUT_BYTES + 1);
    let read = 0;
    for await (const chunk of await openInputFile(file, 'gcode', file, {
      maxBytes: Number.POSITIVE_INFINITY,
    }))
      read += chunk.byteLength;
    expect(read).toBe(MAX_INPUT_BYTES + 1);
  });

  it('reports the OS refusing the read as a lower-case reason', async () => {
    const locked = join(dir, 'locked.wind');
    writeFileSync(locked, '{}');
    chmodSync(locked, 0o000);
    const closedDir = join(dir, 'closed');
    mkdirSync(closedDir, { mode: 0o700 });
    writeFileSync(join(closedDir, 'inner.wind'), '{}');
    const targets = [locked, join(closedDir, 'inner.wind')];
    let messages: string[];
    if (process.getuid?.() === 0) {
      // Root reads through mode bits, so the reads run in a child that drops to `nobody`.
      const module = new URL('./input-file.ts', import.meta.url).href;
      const script = `
        const { readInputFile } = await import(${JSON.stringify(module)});
        process.setgid(65534); process.setuid(65534);
        const out = [];
        for (const [path, kind] of ${JSON.stringify(targets.map((t, i) => [t, i === 0 ? 'wind' : 'gcode']))}) {
          try { await readInputFile(path, kind); out.push('read'); } catch (e) { out.push(e.name + ': ' + e.message); }
        }
        process.stdout.write(JSON.stringify(out));`;
      messages = JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
      );
    } else {
      messages = [];
      for (const [i, path] of targets.entries()) {
        const error = await failure(path, i === 0 ? 'wind' : 'gcode');
        messages.push(`${error.name}: ${error.message}`);
      }
    }
    expect(messages).toEqual([
      `WindFileError: ${reading.wind(locked, 'permission denied')}`,
      `SimulationError: ${reading.gcode(targets[1] as string, 'permission denied')}`,
    ]);
  });
});

describe('osErrorReason', () => {
  it('uses the C library wording, lower-cased', () => {
    expect(osErrorReason(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe('permission denied');
    expect(osErrorReason({ code: 'EIO', errno: -constants.errno.EIO })).toBe('input/output error');
    expect(osErrorReason({ code: 'EISDIR' })).toBe('is a directory');
  });

  it('falls back to the system description, then the code', () => {
    expect(osErrorReason({ code: 'ECONNRESET', errno: -constants.errno.ECONNRESET })).toBe(
      'connection reset by peer',
    );
    expect(osErrorReason({ code: 'EWEIRD' })).toBe('eweird');
  });
});

describe('openInputFile', () => {
  it('streams the file in chunks', async () => {
    const file = join(dir, 'long.gcode');
    const content = 'G1 X1.000000 A2.000000\n'.repeat(20_000);
    writeFileSync(file, content);
    const stream = await openInputFile(file, 'gcode');
    expect(stream.size).toBe(content.length);
    const chunks: Uint8Array[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).toString('latin1')).toBe(content);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only be read once/);
  });

  it('can be abandoned part way', async () => {
    const file = join(dir, 'long.gcode');
    const stream = await openInputFile(file, 'gcode');
    for await (const chunk of stream) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    await stream.close();
  });

  it('applies the same checks before returning', async () => {
    await expect(openInputFile(join(dir, 'absent.gcode'), 'gcode')).rejects.toThrow(
      `No file found at ${join(dir, 'absent.gcode')}`,
    );
  });
});

describe('readWindDefinition', () => {
  it('reads and validates a definition', async () => {
    const definition = await readWindDefinition(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'));
    expect(definition.defaultFeedRate).toBe(9000);
  });

  it('checks UTF-8 after the file checks', async () => {
    const file = join(dir, 'latin1.wind');
    writeFileSync(file, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]));
    await expect(readWindDefinition(file)).rejects.toThrow(
      `Could not read wind definition at ${file}: not valid UTF-8 (byte 2)`,
    );
  });
});
