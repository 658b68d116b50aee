// Loading a `.wind` definition (spec/winding.md §2): bytes → strict UTF-8 → normalised text →
// Python-compatible JSON → schema validation. Every failure is a WindFileError with the spec's text.
import { WindFileError } from '../errors.ts';
import { firstInvalidUtf8 } from '../text/utf8.ts';
import { decodeJson, JsonSyntaxError } from './json-decoder.ts';
import { formatSchemaReport } from './report.ts';
import type { WindDefinition } from './types.ts';
import { validateWindDocument } from './validate.ts';

export { renderWindJsonSchema, windJsonSchema } from './json-schema.ts';
export type * from './types.ts';
export type { SchemaIssue, ValidationResult } from './validate.ts';
export { validateWindDocument } from './validate.ts';

/** Removes one leading BOM and turns CRLF and lone CR into LF (§2.1). */
export function normaliseWindText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body;
}

/** Parses text already decoded from UTF-8 (BOM and line endings are normalised here). */
export function parseWindText(text: string, path: string): WindDefinition {
  const normalised = normaliseWindText(text);
  let document: ReturnType<typeof decodeJson>;
  try {
    document = decodeJson(normalised);
  } catch (error) {
    if (error instanceof JsonSyntaxError)
      throw new WindFileError(`Invalid JSON in ${path}: ${error.describe(normalised)}`);
    throw error;
  }
  const result = validateWindDocument(document);
  if (!result.ok) throw new WindFileError(formatSchemaReport(path, result.issues));
  return result.value;
}

/** Parses the raw bytes of a `.wind` file (§2.1 row 5 onwards). `path` is only used in messages. */
export function parseWindDefinition(bytes: Uint8Array, path: string): WindDefinition {
  const invalid = firstInvalidUtf8(bytes);
  if (invalid >= 0)
    throw new WindFileError(`Could not read wind definition at ${path}: not valid UTF-8 (byte ${invalid})`);
  return parseWindText(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes), path);
}
