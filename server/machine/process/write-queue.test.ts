// The serial write path with a stand-in OS: `writeNow` takes only as many bytes as the test allows
// (a full output buffer), `writeAll` finishes when the test says so.
import { describe, expect, it } from 'vitest';
import { WriteQueue } from './write-queue.ts';

function again(): Error {
  return Object.assign(new Error('EAGAIN: resource temporarily unavailable, write'), { code: 'EAGAIN' });
}

function rig() {
  /** Bytes in the order they reached the OS. */
  const wire: string[] = [];
  /** How many bytes the next writeNow takes; undefined = all. */
  const takes: (number | 'again' | Error)[] = [];
  const nowCalls: string[] = [];
  const pendingAll: { bytes: string; finish: () => void; fail: (error: Error) => void }[] = [];
  const lost: string[] = [];
  const queue = new WriteQueue({
    writeNow(bytes) {
      nowCalls.push(bytes.toString('latin1'));
      const take = takes.shift();
      if (take === 'again') throw again();
      if (take instanceof Error) throw take;
      const count = take === undefined ? bytes.length : Math.min(take, bytes.length);
      wire.push(bytes.subarray(0, count).toString('latin1'));
      return count;
    },
    writeAll(bytes) {
      return new Promise<void>((resolve, reject) => {
        pendingAll.push({
          bytes: bytes.toString('latin1'),
          finish: () => {
            wire.push(bytes.toString('latin1'));
            resolve();
          },
          fail: reject,
        });
      });
    },
    lost: (reason) => lost.push(reason),
  });
  /** Lets the oldest background write finish, then lets the queue take its next step. */
  const finishOne = async () => {
    const next = pendingAll.shift();
    if (!next) throw new Error('no background write is pending');
    next.finish();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { queue, wire, takes, nowCalls, pendingAll, lost, finishOne };
}

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('serial write queue', () => {
  it('writes a line the OS takes whole in one call and queues nothing', async () => {
    const r = rig();
    r.queue.write(bytes('N1 G0 X1*33\n'));
    r.queue.write(bytes('N2 G0 X2*34\n'));
    expect(r.nowCalls).toEqual(['N1 G0 X1*33\n', 'N2 G0 X2*34\n']);
    expect(r.wire.join('')).toBe('N1 G0 X1*33\nN2 G0 X2*34\n');
    expect(r.queue.pending).toBe(false);
    expect(r.pendingAll).toEqual([]);
  });

  it('keeps the rest of a partly taken line, and later lines behind it, in order', async () => {
    const r = rig();
    r.takes.push(5);
    r.queue.write(bytes('N1 G0 X1*33\n'));
    expect(r.queue.pending).toBe(true);
    expect(r.pendingAll.map((w) => w.bytes)).toEqual([' X1*33\n']);
    // A line written meanwhile must not jump ahead of the rest, not even partly.
    r.queue.write(bytes('N2 G0 X2*34\n'));
    r.queue.write(bytes('N3 G0 X3*35\n'));
    expect(r.nowCalls).toEqual(['N1 G0 X1*33\n']);
    await r.finishOne();
    await r.finishOne();
    await r.finishOne();
    expect(r.wire.join('')).toBe('N1 G0 X1*33\nN2 G0 X2*34\nN3 G0 X3*35\n');
    expect(r.queue.pending).toBe(false);
    await r.queue.settled();
    // Drained: the next line goes straight to the OS again.
    r.queue.write(bytes('N4 G0 X4*36\n'));
    expect(r.nowCalls.at(-1)).toBe('N4 G0 X4*36\n');
    expect(r.lost).toEqual([]);
  });

  it('queues the whole line when the OS takes nothing (EAGAIN)', async () => {
    const r = rig();
    r.takes.push('again');
    r.queue.write(bytes('N1 G0*1\n'));
    expect(r.wire).toEqual([]);
    expect(r.pendingAll.map((w) => w.bytes)).toEqual(['N1 G0*1\n']);
    await r.finishOne();
    expect(r.wire.join('')).toBe('N1 G0*1\n');
  });

  it('reports and throws an I/O error of the immediate write', () => {
    const r = rig();
    r.takes.push(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }));
    expect(() => r.queue.write(bytes('N1 G0*1\n'))).toThrow('EIO: i/o error, write');
    expect(r.lost).toEqual(['EIO: i/o error, write']);
  });

  it('reports a failing background write and drops what was queued', async () => {
    const r = rig();
    r.takes.push(2);
    r.queue.write(bytes('N1 G0*1\n'));
    r.queue.write(bytes('N2 G0*2\n'));
    r.pendingAll.shift()?.fail(new Error('EIO: i/o error, write'));
    await r.queue.settled();
    expect(r.lost).toEqual(['EIO: i/o error, write']);
    expect(r.queue.pending).toBe(false);
    expect(r.pendingAll).toEqual([]);
  });

  it('writes an urgent line exactly as given when nothing is pending', () => {
    const r = rig();
    r.queue.writeUrgent('M112\n');
    expect(r.wire).toEqual(['M112\n']);
  });

  it('writes an urgent line at once, ahead of queued lines, ending a half-written line first', async () => {
    const r = rig();
    r.takes.push(4);
    r.queue.write(bytes('N7 G0 X7*40\n'));
    r.queue.write(bytes('N8 G0 X8*41\n'));
    r.queue.writeUrgent('M112\n');
    // Straight to the OS, not behind the background write still under way.
    expect(r.nowCalls).toEqual(['N7 G0 X7*40\n', '\nM112\n']);
    expect(r.wire.join('')).toBe('N7 G\nM112\n');
    // The rest of the interrupted line still leaves (it cannot be recalled), the queued line never.
    await r.finishOne();
    expect(r.pendingAll).toEqual([]);
    expect(r.wire.join('')).toBe('N7 G\nM112\n0 X7*40\n');
    expect(r.wire.join('')).not.toContain('N8');
  });

  it('ends the line of a background write under way even when nothing else is queued', () => {
    const r = rig();
    r.takes.push(4);
    r.queue.write(bytes('N7 G0 X7*40\n'));
    // The rest of the line has left the backlog and is being written in the background.
    expect(r.pendingAll).toHaveLength(1);
    r.queue.writeUrgent('M112\n');
    expect(r.nowCalls.at(-1)).toBe('\nM112\n');
  });

  it('finishes an urgent line the OS took only part of before anything else', async () => {
    const r = rig();
    r.takes.push(2);
    r.queue.writeUrgent('M112\n');
    r.queue.write(bytes('N9 G0*9\n'));
    await r.finishOne();
    await r.finishOne();
    expect(r.wire.join('')).toBe('M112\nN9 G0*9\n');
  });
});
