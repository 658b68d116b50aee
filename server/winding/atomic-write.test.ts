import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/workstation.ts';
import { LocationRefused, temporaryOwner, writeFileAtomically } from './atomic-write.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('writeFileAtomically', () => {
  it('writes every chunk, reusing the producer buffer safely', async () => {
    const dir = await makeTempDir();
    const target = join(dir, 'out.gcode');
    const buffer = new Uint8Array(4);
    const result = await writeFileAtomically(target, (write) => {
      for (const part of ['G0 X', '1\nG0', ' X2\n']) {
        buffer.set(bytes(part));
        write(buffer.subarray(0, part.length));
      }
      return 'done';
    });
    expect(result).toBe('done');
    expect(await readFile(target, 'utf8')).toBe('G0 X1\nG0 X2\n');
    expect(await readdir(dir)).toEqual(['out.gcode']);
  });

  it('leaves the previous file intact and no temporary file when the producer fails', async () => {
    const dir = await makeTempDir();
    const target = join(dir, 'out.gcode');
    await writeFile(target, 'previous program\n');
    await expect(
      writeFileAtomically(target, async (write) => {
        write(bytes('G0 X1\n'));
        throw new Error('planning failed half way');
      }),
    ).rejects.toThrow('planning failed half way');
    expect(await readFile(target, 'utf8')).toBe('previous program\n');
    expect(await readdir(dir)).toEqual(['out.gcode']);
  });

  it('fails before writing anything when the folder does not exist', async () => {
    const dir = await makeTempDir();
    await expect(writeFileAtomically(join(dir, 'missing', 'out.gcode'), () => 0)).rejects.toThrow(/ENOENT/);
  });

  it('shows the real location of the open file before writing and before the rename, and removes it when refused', async () => {
    const dir = await makeTempDir();
    const target = join(dir, 'out.gcode');
    await writeFile(target, 'previous program\n');
    const seen: string[] = [];
    await expect(
      writeFileAtomically(
        target,
        (write) => {
          write(bytes('G0 X1\n'));
        },
        {
          checkLocation: (real) => {
            seen.push(real);
            if (seen.length === 2) throw new LocationRefused(real);
          },
        },
      ),
    ).rejects.toThrow(LocationRefused);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toMatch(new RegExp(`^${dir}/\\.out\\.gcode\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`));
    expect(temporaryOwner(seen[0]?.slice(dir.length + 1) ?? '')).toBe(process.pid);
    expect(await readFile(target, 'utf8')).toBe('previous program\n');
    expect(await readdir(dir)).toEqual(['out.gcode']);
  });
});
