// Which lines of a G-code program are commands, and how a command is framed (spec/winding.md §6.1).

/** A program the host refuses before sending anything: one of the §6.1 line messages. */
export class ProgramError extends Error {
  override name = 'ProgramError';
}

export interface ProgramCommand {
  command: string;
  /** 1-based line number in the program text. */
  sourceLine: number;
}

export interface Program {
  commands: ProgramCommand[];
  total: number;
}

export const MAX_COMMAND_LENGTH = 80;

/**
 * The command on one program line, or undefined for a comment or blank line. Throws ProgramError
 * for a command Marlin could not receive intact.
 */
export function commandOf(text: string, sourceLine: number): string | undefined {
  const semicolon = text.indexOf(';');
  const command = (semicolon === -1 ? text : text.slice(0, semicolon)).trim();
  if (command === '') return undefined;
  for (let i = 0; i < command.length; i++) {
    const code = command.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) {
      throw new ProgramError(`Line ${sourceLine}: command contains a character that cannot be sent`);
    }
  }
  if (command.includes('*')) {
    throw new ProgramError(`Line ${sourceLine}: command contains '*', which is reserved for the checksum`);
  }
  if (command.length > MAX_COMMAND_LENGTH) {
    throw new ProgramError(`Line ${sourceLine}: command is longer than ${MAX_COMMAND_LENGTH} characters`);
  }
  return command;
}

/** Splits program text on CRLF, LF or CR and keeps the commands; refuses the whole job on a bad line. */
export function prepareProgram(text: string): Program {
  const commands: ProgramCommand[] = [];
  let start = 0;
  let sourceLine = 1;
  const length = text.length;
  while (start <= length) {
    let end = start;
    while (end < length) {
      const code = text.charCodeAt(end);
      if (code === 0x0a || code === 0x0d) break;
      end++;
    }
    const command = commandOf(text.slice(start, end), sourceLine);
    if (command !== undefined) commands.push({ command, sourceLine });
    if (end >= length) break;
    start = text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
    sourceLine++;
  }
  return { commands, total: commands.length };
}

/** XOR of every byte, as Marlin checks it. Commands are ASCII, so UTF-16 units are the bytes. */
export function checksum(text: string): number {
  let cs = 0;
  for (let i = 0; i < text.length; i++) cs ^= text.charCodeAt(i);
  return cs & 0xff;
}

/** `N{n} {command}*{cs}` without the line feed. */
export function frameLine(lineNumber: number, command: string): string {
  const body = `N${lineNumber} ${command}`;
  return `${body}*${checksum(body)}`;
}

/** The handshake line that resets Marlin's line counter: always `N0 M110 N0*125`. */
export const SYNC_FRAME = frameLine(0, 'M110 N0');
