// The `; Parameters {json}` header (spec §5 step 2). Programs are judged by what Python's
// `json.loads` accepts: it also takes the bare literals NaN, Infinity and -Infinity, which
// `JSON.parse` rejects. Outside strings those literals are swapped for `null` first; that keeps
// every document valid or invalid exactly as before, and a non-finite diameter fails either way.

export const PARAMETERS_PREFIX = '; Parameters ';

function replacePythonLiterals(text: string): string {
  let out = '';
  let copied = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    let length = 0;
    if (text.startsWith('NaN', i)) length = 3;
    else if (text.startsWith('Infinity', i)) length = 8;
    else if (text.startsWith('-Infinity', i)) length = 9;
    if (length > 0) {
      out += `${text.slice(copied, i)}null`;
      i += length - 1;
      copied = i + 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The mandrel diameter of a header's JSON text (what follows `; Parameters `), or null when the
 * text is not JSON or `mandrel.diameter` is not a finite number > 0 (booleans and numeric strings
 * are not numbers here).
 */
export function headerDiameter(json: string): number | null {
  let document: unknown;
  try {
    document = JSON.parse(replacePythonLiterals(json));
  } catch {
    return null;
  }
  if (!isObject(document) || !Object.hasOwn(document, 'mandrel')) return null;
  const mandrel = document.mandrel;
  if (!isObject(mandrel) || !Object.hasOwn(mandrel, 'diameter')) return null;
  const diameter = mandrel.diameter;
  if (typeof diameter !== 'number' || !Number.isFinite(diameter) || !(diameter > 0)) return null;
  return diameter;
}
