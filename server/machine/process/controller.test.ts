import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProgramError } from '../../../engine/machine/program.ts';
import { makeTempDir, startTestWorkstation } from '../../testing/workstation.ts';
import { MachineLink } from '../link.ts';
import { loadProgram, MachineController } from './controller.ts';

describe('machine controller', () => {
  it('dry-runs a program without opening any port', async () => {
    const opened: string[] = [];
    const machine = new MachineController({
      open: async (port) => {
        opened.push(port);
        throw new Error('must not open');
      },
    });
    await expect(machine.dryRun({ gcode: '; header\nG0 X1\n\nG0 X2 ; two\n' })).resolves.toEqual({
      commands_streamed: 2,
      total_commands: 2,
      dry_run: true,
    });
    await expect(machine.dryRun({ gcode: '; only comments' })).resolves.toMatchObject({ total_commands: 0 });
    expect(opened).toEqual([]);
    expect(machine.status().state).toBe('idle');
  });

  it('loads a job from an absolute file path, refusing bad paths and lines before anything is sent', async () => {
    const dir = await makeTempDir();
    const file = join(dir, 'job.gcode');
    await writeFile(file, '; Towpath\r\nG0 X1\r\nG92 A0 ; zero \xe9\r\n', 'latin1');
    expect((await loadProgram({ path: file })).commands).toEqual([
      { command: 'G0 X1', sourceLine: 2 },
      { command: 'G92 A0', sourceLine: 3 },
    ]);
    await expect(loadProgram({ path: 'job.gcode' })).rejects.toThrow(
      new ProgramError("Path must be absolute: 'job.gcode'"),
    );
    await expect(loadProgram({ path: join(dir, 'missing.gcode') })).rejects.toThrow(
      new ProgramError(`No file found at ${join(dir, 'missing.gcode')}`),
    );
    await writeFile(file, 'G0 X1\nG1 X\xe9\n', 'latin1');
    await expect(loadProgram({ path: file })).rejects.toThrow(
      'Line 2: command contains a character that cannot be sent',
    );
  });

  it('is one per workstation (in its machine process), reachable on the LAN door', async () => {
    const ws = await startTestWorkstation();
    try {
      expect(ws.machine).toBeInstanceOf(MachineLink);
      const response = await fetch(`${ws.urls.lan}/api/machine/status`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ state: 'idle', port: null, job: null });
    } finally {
      await ws.dispose();
    }
  });
});
