import { describe, expect, it } from 'vitest';
import { checksum, commandOf, frameLine, ProgramError, prepareProgram, SYNC_FRAME } from './program.ts';

describe('framing (§6.1)', () => {
  it('frames with the decimal XOR of every byte before the asterisk', () => {
    expect(frameLine(1, 'G0 X0 A0 B0')).toBe('N1 G0 X0 A0 B0*99');
    expect(frameLine(2, 'G0 F9000')).toBe('N2 G0 F9000*68');
    expect(frameLine(3, 'G0 X0 A45 B0')).toBe('N3 G0 X0 A45 B0*80');
    expect(frameLine(4, 'G92 A0')).toBe('N4 G92 A0*71');
    expect(SYNC_FRAME).toBe('N0 M110 N0*125');
    expect(checksum('')).toBe(0);
  });
});

describe('program preparation (§6.1)', () => {
  it('keeps commands with their source lines; comments and blank lines are never commands', () => {
    const program = prepareProgram('; header\r\nG0 X1 ; move\n\n   \rG92 A0\r\n;only\nM400');
    expect(program.total).toBe(3);
    expect(program.commands).toEqual([
      { command: 'G0 X1', sourceLine: 2 },
      { command: 'G92 A0', sourceLine: 5 },
      { command: 'M400', sourceLine: 7 },
    ]);
  });

  it('counts CRLF as one line end and a lone CR as one', () => {
    expect(prepareProgram('A\r\nB\rC\nD').commands.map((c) => c.sourceLine)).toEqual([1, 2, 3, 4]);
    expect(prepareProgram('\r\n\r\nG1\r\n').commands).toEqual([{ command: 'G1', sourceLine: 3 }]);
  });

  it('gives an empty program for only comments and blank lines', () => {
    expect(prepareProgram('; nothing\n\n').total).toBe(0);
    expect(prepareProgram('').total).toBe(0);
  });

  it('refuses the whole job on a line that cannot be sent, naming the line', () => {
    expect(() => prepareProgram('G0\nG1 X1*12\n')).toThrow(
      new ProgramError("Line 2: command contains '*', which is reserved for the checksum"),
    );
    expect(() => prepareProgram('G0\n\nG1 X\t1')).toThrow(
      'Line 3: command contains a character that cannot be sent',
    );
    expect(() => prepareProgram('G1 X\u00e91')).toThrow(
      'Line 1: command contains a character that cannot be sent',
    );
    expect(() => prepareProgram(`G0\nG1 ${'X'.repeat(78)}`)).toThrow(
      'Line 2: command is longer than 80 characters',
    );
    // A comment may hold anything: it is cut off before the checks.
    expect(commandOf(`G1 X1 ; *\u00e9 ${'x'.repeat(100)}`, 1)).toBe('G1 X1');
    expect(commandOf('X'.repeat(80), 1)).toHaveLength(80);
  });
});
