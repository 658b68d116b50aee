import { describe, expect, it } from 'vitest';
import { classify, isAdvancedOk, ReceivedLineSplitter } from './received.ts';

describe('received line classification (§6.2)', () => {
  it.each([
    ['//action:pause', { kind: 'action', text: 'pause' }],
    ['Resend: 12', { kind: 'resend', line: 12 }],
    ['resend:7', { kind: 'resend', line: 7 }],
    ['rs N5', { kind: 'resend', line: 5 }],
    ['Error:Printer halted. kill() called!', { kind: 'halt' }],
    ['Error:Thermal Runaway, system stopped! Heater_ID: 0', { kind: 'halt' }],
    ['!! emergency', { kind: 'halt' }],
    ['echo:MAXTEMP triggered', { kind: 'halt' }],
    ['Error:checksum mismatch, Last Line: 3', { kind: 'line-error' }],
    ['Error:No Checksum with line number, Last Line: 3', { kind: 'line-error' }],
    ['error:No Line Number with checksum, Last Line: 3', { kind: 'line-error' }],
    ['Error:Line Number is not Last Line Number+1, Last Line: 3', { kind: 'line-error' }],
    ['Error: Probing failed', { kind: 'fatal', text: 'Probing failed' }],
    ['echo:busy: processing', { kind: 'keep-alive', waitingForUser: false }],
    ['busy: paused for user', { kind: 'keep-alive', waitingForUser: true }],
    ['wait', { kind: 'idle' }],
    ['ok', { kind: 'ack' }],
    ['ok T:20.0 /0.0 B:21.0 /0.0', { kind: 'ack' }],
    ['ok N12 P15 B3', { kind: 'ack' }],
    ['okay', { kind: 'log' }],
    ['start', { kind: 'start' }],
    ['echo:Unknown command: "G999"', { kind: 'log' }],
    ['FIRMWARE_NAME:Marlin 2.1.2', { kind: 'log' }],
    ['Cap:EMERGENCY_PARSER:1', { kind: 'log' }],
    ['Resend: soon', { kind: 'log' }],
  ])('%s', (line, expected) => {
    expect(classify(line)).toEqual(expected);
  });

  it('recognises ADVANCED_OK acknowledgements', () => {
    expect(isAdvancedOk('ok P15 B3')).toBe(true);
    expect(isAdvancedOk('ok N4 P0 B12')).toBe(true);
    expect(isAdvancedOk('ok')).toBe(false);
    expect(isAdvancedOk('ok T:20.0 B:21.0')).toBe(false);
  });
});

describe('line splitter', () => {
  it('holds a partial line until its end and drops blank lines', () => {
    const splitter = new ReceivedLineSplitter();
    expect(splitter.push('o')).toEqual([]);
    expect(splitter.push('k\r\n  \nResend')).toEqual(['ok']);
    expect(splitter.push(': 3\nok\n')).toEqual(['Resend: 3', 'ok']);
  });
});
