// What the jog pad sends and how M114 answers read, for both axis formats.
import { describe, expect, it } from 'vitest';
import { homeCommand, jogCommands, parsePosition, zeroCommand } from './manual.ts';

describe('manual commands', () => {
  it('names the axes with the format’s letters', () => {
    expect(jogCommands('xab', 'A', -0.1, 600)).toEqual(['G91', 'G1 A-0.1 F600', 'G90']);
    expect(jogCommands('xyz', 'A', 100, 1500)).toEqual(['G91', 'G1 Y100 F1500', 'G90']);
    expect(jogCommands('xyz', 'B', 1, 0.25)).toEqual(['G91', 'G1 Z1 F0.25', 'G90']);
    expect(homeCommand('xab', 'all')).toBe('G28');
    expect(homeCommand('xyz', 'B')).toBe('G28 Z');
    expect(zeroCommand('xab', 'all')).toBe('G92 X0 A0 B0');
    expect(zeroCommand('xyz', 'all')).toBe('G92 X0 Y0 Z0');
    expect(zeroCommand('xyz', 'X')).toBe('G92 X0');
  });
});

describe('parsePosition', () => {
  it('reads the planned position before Count with the format’s letters', () => {
    const five = [
      'echo:busy',
      'X:12.50 Y:0.00 Z:0.00 A:-90.25 B:15.00 E:0.00 Count X:1000 Y:0 Z:0 A:9 B:7',
      'ok',
    ];
    expect(parsePosition(five, 'xab')).toEqual({ x: 12.5, a: -90.25, b: 15 });
    // The same answer read as xyz takes Y and Z.
    expect(parsePosition(five, 'xyz')).toEqual({ x: 12.5, a: 0, b: 0 });
    const three = ['X:1.00 Y:360.00 Z:-4.50 E:0.00 Count X: 80 Y:28800 Z:-360'];
    expect(parsePosition(three, 'xyz')).toEqual({ x: 1, a: 360, b: -4.5 });
  });

  it('never takes the raw step counts for a missing axis', () => {
    // A and B appear only after Count: the answer has no A or B position.
    expect(parsePosition(['X:1.00 Y:0.00 Z:0.00 E:0.00 Count X:80 A:3 B:4'], 'xab')).toBeUndefined();
    expect(parsePosition(['ok'], 'xab')).toBeUndefined();
    expect(parsePosition([], 'xyz')).toBeUndefined();
  });
});
