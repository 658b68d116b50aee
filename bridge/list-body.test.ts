// The list scanner must never disagree with JSON.parse: when it vouches for a body, the body parses
// to {ok:true, data:[…]} with exactly those items; everything else is left to JSON.parse.
import { describe, expect, it } from 'vitest';
import { scanListEnvelope } from './list-body.ts';

/** What JSON.parse makes of the body: the items of a success list, or undefined. */
function reference(body: Buffer): unknown[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const envelope = parsed as { ok?: unknown; data?: unknown };
  return envelope.ok === true && Array.isArray(envelope.data) ? envelope.data : undefined;
}

/** The scanner agrees with JSON.parse, or declines (then the host client parses the body whole). */
function agrees(body: Buffer): boolean {
  const list = scanListEnvelope(body);
  if (list === undefined) return true;
  const items = reference(body);
  if (items === undefined || list.length !== items.length) return false;
  return JSON.stringify(list.slice(0, list.length)) === JSON.stringify(items);
}

const items = [
  { id: 'a', title: 'Tea "green" \\ \u00e9 \u{1f600} \u2028', n: -0.5e-3, z: 0, big: 1.2345678901234567e19 },
  [],
  {},
  [[[{ deep: [null, true, false, 'x'] }]]],
  'text',
  -1,
  null,
];

describe('scanListEnvelope', () => {
  it('reads the items of well-formed list envelopes, in any key order and spacing', () => {
    const bodies = [
      JSON.stringify({ ok: true, data: items }),
      JSON.stringify({ data: items, ok: true, extra: { data: 1, ok: false } }),
      JSON.stringify({ ok: true, data: items }, null, 2).replace(/\n/g, '\r\n\t'),
      '{"ok":true,"data":[]}',
      ' {"ok" : true , "data" : [ 1 , "2" ] } \n',
      '{"ok":false,"ok":true,"data":[1]}',
      '{"ok":true,"data":null,"data":[1,2]}',
    ];
    for (const text of bodies) {
      const body = Buffer.from(text);
      const list = scanListEnvelope(body);
      expect(list, text).toBeDefined();
      expect(list?.slice(0, list.length)).toEqual(reference(body));
    }
    const list = scanListEnvelope(Buffer.from(JSON.stringify({ ok: true, data: items })));
    expect(list?.length).toBe(items.length);
    expect(list?.slice(5)).toEqual([-1, null]);
    expect(list?.slice(1, 3)).toEqual([[], {}]);
    expect(list?.slice(6, 100)).toEqual([null]);
  });

  it('declines everything that is not exactly a valid success list', () => {
    const bodies = [
      '',
      '   ',
      '<html>oops</html>',
      'null',
      '[]',
      '{}',
      '{"ok":true}',
      '{"ok":true,"data":{}}',
      '{"ok":"true","data":[]}',
      '{"ok":true,"data":[],"ok":false}',
      '{"ok":true,"data":[1],"data":null}',
      '{"o\\u006b":true,"data":[]}', // an escaped key: left to JSON.parse
      '{"ok":true,"data":[1,]}',
      '{"ok":true,"data":[01]}',
      '{"ok":true,"data":[1.]}',
      '{"ok":true,"data":[.5]}',
      '{"ok":true,"data":[-]}',
      '{"ok":true,"data":[1e]}',
      '{"ok":true,"data":["a\tb"]}',
      '{"ok":true,"data":["\\x"]}',
      '{"ok":true,"data":["\\u12g4"]}',
      '{"ok":true,"data":[tru]}',
      '{"ok":true,"data":[{"a" 1}]}',
      '{"ok":true,"data":[{"a":1,}]}',
      '{"ok":true,"data":[{1:1}]}',
      '{"ok":true,"data":[[1}]}',
      '{"ok":true,"data":[]}x',
      '{"ok":true,"data":[]',
      '\ufeff{"ok":true,"data":[]}',
      "{'ok':true,'data':[]}",
    ];
    for (const text of bodies) expect(scanListEnvelope(Buffer.from(text)), text).toBeUndefined();
  });

  it('follows nesting deeper than its first stack of open containers', () => {
    const depth = 400;
    const arrays = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const objects = `${'{"a":'.repeat(depth)}[]${'}'.repeat(depth)}`;
    const mixed = `${'[{"k":'.repeat(depth)}null${'}]'.repeat(depth)}`;
    for (const item of [arrays, objects, mixed]) {
      const body = Buffer.from(`{"ok":true,"data":[${item},2]}`);
      expect(scanListEnvelope(body)?.length).toBe(2);
      expect(agrees(body)).toBe(true);
    }
    // One bracket short, or one of the wrong kind, deep inside: declined.
    expect(scanListEnvelope(Buffer.from(`{"ok":true,"data":[${arrays.slice(1)}]}`))).toBeUndefined();
    expect(
      scanListEnvelope(Buffer.from(`{"ok":true,"data":[${mixed.replace('}]}]', '}]]]')}]}`)),
    ).toBeUndefined();
  });

  it('keeps invalid UTF-8 inside strings as JSON.parse sees it', () => {
    const body = Buffer.concat([
      Buffer.from('{"ok":true,"data":["a'),
      Buffer.from([0xc3, 0xff, 0xe2, 0x82]),
      Buffer.from('",{"t":"'),
      Buffer.from([0xf0, 0x9f]),
      Buffer.from('"}]}'),
    ]);
    expect(scanListEnvelope(body)).toBeDefined();
    expect(agrees(body)).toBe(true);
    expect(
      scanListEnvelope(Buffer.concat([Buffer.from('{"ok":true,"data":['), Buffer.from([0xff, 0x5d, 0x7d])])),
    ).toBeUndefined();
    expect(
      agrees(Buffer.concat([Buffer.from('{"ok":true,"data":['), Buffer.from([0xff]), Buffer.from(']}')])),
    ).toBe(true);
  });

  it('never vouches for a body JSON.parse reads differently (seeded mutations)', () => {
    const base = Buffer.from(
      JSON.stringify({ ok: true, data: items, note: 'x' }, null, 1) + JSON.stringify({ ok: true, data: [1] }),
    );
    const valid = Buffer.from(JSON.stringify({ ok: true, data: items }, null, 1));
    const alphabet = Buffer.from('{}[],:"\\ \t\n0123456789-+.eEtrufalsn\u0000x');
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let vouched = 0;
    for (let round = 0; round < 4000; round++) {
      const body = Buffer.from(round % 2 === 0 ? valid : base);
      const edits = 1 + random(3);
      let mutated: Buffer = body;
      for (let e = 0; e < edits; e++) {
        const at = random(mutated.length);
        const kind = random(3);
        const byte = alphabet[random(alphabet.length)] ?? 0x20;
        if (kind === 0) mutated[at] = byte;
        else if (kind === 1) mutated = Buffer.concat([mutated.subarray(0, at), mutated.subarray(at + 1)]);
        else mutated = Buffer.concat([mutated.subarray(0, at), Buffer.from([byte]), mutated.subarray(at)]);
      }
      expect(agrees(mutated), mutated.toString()).toBe(true);
      if (scanListEnvelope(mutated)) vouched++;
    }
    // Some mutations (inside strings, spacing) stay valid: the fast path was exercised.
    expect(vouched).toBeGreaterThan(100);
  });
});
