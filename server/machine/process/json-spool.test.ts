// The machine door's streaming JSON body decoder against JSON.parse: same fields and the same
// `gcode` text however the bytes are split, and a 400 for what JSON.parse refuses or the door does
// not take (nesting, duplicate fields).
import { readFile, stat } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spoolJsonBody } from './json-spool.ts';

/** The body's bytes in pieces cut at the given offsets (mid-character cuts included). */
async function* pieces(bytes: Buffer, cuts: number[]) {
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((a, b) => a - b)) {
    yield bytes.subarray(at, cut);
    at = cut;
  }
  yield bytes.subarray(at);
}

async function decode(text: string, cuts: number[] = []) {
  const body = await spoolJsonBody(pieces(Buffer.from(text), cuts), {
    spoolField: 'gcode',
    limitBytes: 1 << 20,
  });
  try {
    const gcode = body.spooled ? await readFile(body.spooled.path, 'utf8') : undefined;
    return { fields: body.fields, gcode };
  } finally {
    await body.discard();
    if (body.spooled) await expect(stat(body.spooled.path)).rejects.toThrow();
  }
}

describe('spoolJsonBody', () => {
  it('decodes like JSON.parse, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme-composite', maxLength: 300 }),
        fc.string({ maxLength: 20 }),
        fc.option(fc.integer(), { nil: undefined }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (gcode, port, baudRate, cuts) => {
          const value = {
            port,
            gcode,
            ...(baudRate === undefined ? {} : { baudRate }),
            dry: true,
            none: null,
          };
          const text = JSON.stringify(value, null, cuts.length % 2 ? 1 : undefined);
          const { fields, gcode: spooled } = await decode(text, cuts);
          const { gcode: _gcode, ...rest } = JSON.parse(text);
          expect(fields).toEqual(rest);
          expect(spooled).toBe(gcode);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('decodes escapes and surrogate pairs split across chunks', async () => {
    const text = '{"gcode":"G0 X1\\nG1 \\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ \\/"}';
    for (let cut = 0; cut <= text.length; cut++) {
      expect((await decode(text, [cut])).gcode).toBe('G0 X1\nG1 é 😀 "q" \\ /');
    }
  });

  it('keeps a surrogate pair whole where the spooled text is cut into writes (every 64 Ki characters)', async () => {
    for (let before = 65_530; before <= 65_537; before++) {
      const text = `{"gcode":"${'G'.repeat(before)}\\ud83d\\ude00 end"}`;
      expect((await decode(text)).gcode).toBe(`${'G'.repeat(before)}😀 end`);
    }
  });

  it('takes an empty body as no fields, and refuses what is not a flat object', async () => {
    expect(await decode('')).toEqual({ fields: {}, gcode: undefined });
    const refusals: [string, string][] = [
      ['[1]', 'expected an object'],
      ['{"gcode": {"a": 1}}', "field 'gcode' must not be nested"],
      ['{"gcode": 5}', "'gcode' must be a string"],
      ['{"port": "a", "port": "b"}', "duplicate field 'port'"],
      ['{"port": "a"', 'unexpected end of the body'],
      ['{"port": "a"} x', 'unexpected data after the object'],
      ['{"port": "\\x"}', "bad escape '\\x'"],
      ['{"port": tru}', "unexpected 'tru'"],
    ];
    for (const [text, why] of refusals) {
      await expect(decode(text), text).rejects.toMatchObject({
        status: 400,
        message: `Invalid JSON body: ${why}`,
      });
    }
    await expect(
      spoolJsonBody(pieces(Buffer.from(JSON.stringify({ gcode: 'x'.repeat(100) })), []), {
        spoolField: 'gcode',
        limitBytes: 50,
      }),
    ).rejects.toMatchObject({ status: 413 });
  });
});
