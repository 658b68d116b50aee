import { describe, expect, it } from 'vitest';
import { type EventStreamEvent, type EventStreamOptions, EventStreamParser } from './event-stream.ts';

interface Seen {
  type: string;
  data: string;
  id: string;
}

function parserFor(events: Seen[], options: Partial<EventStreamOptions> = {}) {
  return new EventStreamParser({
    maxEventSize: 1 << 20,
    maxLineLength: 1 << 20,
    onEvent: (event: EventStreamEvent) =>
      events.push({ type: event.type, data: event.data, id: event.lastEventId }),
    onOversized: () => {},
    ...options,
  });
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

describe('event-stream parser', () => {
  it('gives the same events however the text is cut, with CR, LF or CRLF line ends', () => {
    const text =
      ': hello\r\nid: 7\r\nevent: status\r\ndata: {"a":1}\r\n\r\n' +
      'event: log\rdata: first\rdata: second\r\r' +
      'data: plain\n\nevent: empty\n\nretry: 250\nid: 8\nevent: state\ndata:{"b":2}\n\n';
    const expected: Seen[] = [
      { type: 'status', data: '{"a":1}', id: '7' },
      { type: 'log', data: 'first\nsecond', id: '7' },
      { type: 'message', data: 'plain', id: '7' },
      { type: 'state', data: '{"b":2}', id: '8' },
    ];
    for (let cut = 1; cut <= 7; cut++) {
      const events: Seen[] = [];
      const retries: number[] = [];
      const parser = parserFor(events, { onRetry: (ms) => retries.push(ms) });
      for (let at = 0; at < text.length; at += cut) parser.push(text.slice(at, at + cut));
      expect(events, `pieces of ${cut}`).toEqual(expected);
      expect(retries).toEqual([250]);
      expect(parser.lastEventId).toBe('8');
    }
  });

  it('keeps an event that is not finished yet until its blank line arrives', () => {
    const events: Seen[] = [];
    const parser = parserFor(events);
    parser.push('event: progress\ndata: {"line":3}\n');
    expect(events).toEqual([]);
    parser.push('\n');
    expect(events).toEqual([{ type: 'progress', data: '{"line":3}', id: '' }]);
  });

  it('drops a leading BOM, ignores ids holding NUL and retries that are not digits, and knows no id before one', () => {
    const events: Seen[] = [];
    const retries: number[] = [];
    const parser = parserFor(events, { onRetry: (ms) => retries.push(ms) });
    parser.push('\uFEFFdata: a\n\n');
    expect(parser.lastEventId).toBeNull();
    parser.push('id: 3\nid: 4\u0000\nretry: 1s\nretry: 90\ndata\ndata: \uFEFFb\n\n');
    expect(events).toEqual([
      { type: 'message', data: 'a', id: '' },
      { type: 'message', data: '\n\uFEFFb', id: '3' },
    ]);
    expect(retries).toEqual([90]);
  });
});

describe('event-stream limits', () => {
  it('delivers an event of exactly the limit, counted as the reader counts, and tells a larger one at its end with its size', () => {
    const events: Seen[] = [];
    const sizes: number[] = [];
    const oversized: number[] = [];
    const overflows: number[] = [];
    const parser = new EventStreamParser({
      maxEventSize: 8,
      maxLineLength: 64,
      measure: utf8Bytes,
      onEvent: (event) => {
        events.push({ type: event.type, data: event.data, id: event.lastEventId });
        sizes.push(event.size);
      },
      onOversized: (size) => oversized.push(size),
      onOverflow: (size) => overflows.push(size),
    });
    // 'é' is two bytes: 'ab' + LF + 'éé' is 2 + 1 + 4 = 7 bytes; 'abcdefgh' is 8.
    parser.push('data: ab\ndata: éé\n\ndata: abcdefgh\n\n');
    expect(events).toEqual([
      { type: 'message', data: 'ab\néé', id: '' },
      { type: 'message', data: 'abcdefgh', id: '' },
    ]);
    expect(sizes).toEqual([7, 8]);
    parser.push('data: abcde\ndata: fgh\ndata: ijk\n\ndata: after\n\n');
    expect(overflows).toEqual([9]);
    expect(oversized).toEqual([13]);
    expect(events.at(-1)).toEqual({ type: 'message', data: 'after', id: '' });
  });

  it('drops a line that outgrows its limit before its end, with the rest of that line and its event, once', () => {
    const events: Seen[] = [];
    const oversized: number[] = [];
    const parser = parserFor(events, { maxLineLength: 16, onOversized: (size) => oversized.push(size) });
    parser.push('event: big\ndata: 0123456789');
    parser.push('abcdef');
    expect(oversized).toEqual([22]);
    parser.push('data: not a field\n');
    parser.push('data: still the dropped event\n\nevent: next\ndata: ok\n\n');
    expect(events).toEqual([{ type: 'next', data: 'ok', id: '' }]);
    expect(oversized).toEqual([22]);
  });
});
