// The decoded JSON document (spec/winding.md §2.2). Objects are Maps so that any key, `__proto__`
// included, is plain data and insertion order follows Python's dict (a duplicate key keeps its
// first position and takes the last value).

/**
 * A JSON number. Integer tokens keep their exact decimal digits because Python keeps them as
 * arbitrary-precision ints: they are echoed exactly in messages (a tag of `1` vs `1.0`, a 30-digit
 * integer) while `value` is the nearest double that coercion works on.
 */
export class JsonNumber {
  readonly value: number;
  /** Canonical digits of an integer token (`-0` → `0`); null for float tokens, NaN and ±Infinity. */
  readonly integer: string | null;

  constructor(value: number, integer: string | null) {
    this.value = value;
    this.integer = integer;
  }
}

export type JsonObject = Map<string, JsonValue>;

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
