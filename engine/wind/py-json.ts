// Python's `json.dumps(value, separators=(",", ":"))` (ASCII-only output), used to echo a
// non-string layer tag in `union_tag_invalid` exactly as the reference implementation did.

import { pyrepr } from '../numeric.ts';
import { JsonNumber, type JsonValue } from './json-value.ts';

function pyJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += text[i];
  }
  return `${out}"`;
}

function pyJsonNumber(n: JsonNumber): string {
  if (n.integer !== null) return n.integer;
  if (Number.isNaN(n.value)) return 'NaN';
  if (n.value === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n.value === Number.NEGATIVE_INFINITY) return '-Infinity';
  return pyrepr(n.value);
}

export function pyJsonDumps(value: JsonValue): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return pyJsonString(value);
  if (value instanceof JsonNumber) return pyJsonNumber(value);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(',')}]`;
  const members: string[] = [];
  for (const [key, member] of value) members.push(`${pyJsonString(key)}:${pyJsonDumps(member)}`);
  return `{${members.join(',')}}`;
}

/**
 * Python's `json.dumps(value, indent=2)`: how a definition is written back after an edit, in the
 * layout the reference's own files use (floats as Python writes them, `70.0`, NaN and Infinity as
 * the decoder reads them back).
 */
export function pyJsonDumpsIndented(value: JsonValue, indent = '  ', at = ''): string {
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return pyJsonDumps(value);
  const inner = at + indent;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => inner + pyJsonDumpsIndented(item, indent, inner)).join(',\n')}\n${at}]`;
  }
  if (value.size === 0) return '{}';
  const members: string[] = [];
  for (const [key, member] of value)
    members.push(`${inner}${pyJsonString(key)}: ${pyJsonDumpsIndented(member, indent, inner)}`);
  return `{\n${members.join(',\n')}\n${at}}`;
}
