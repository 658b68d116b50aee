// The binding grammar of `dashboard-document.md` §2.1, parsed once: the server refuses documents whose
// bindings, field paths or templates do not parse, and the renderer resolves what parses against the
// datasources' values. Whitespace is allowed only inside quotes, which the step reader alone accepts.

export type Step = { kind: 'name'; name: string } | { kind: 'index'; index: number };
export interface ParsedBinding {
  /** By datasource id (`datasources.<id>`) or by title (any other first step). */
  ref: { byId: boolean; key: string };
  steps: Step[];
}

const NAME = /^[A-Za-z0-9_$-]+/;
const MAX_LENGTH = 512;

/** Reads a quoted `[...]` body at `at` (the quote); returns the text and the index after `]`. */
function quoted(text: string, at: number): [string, number] | null {
  const quote = text[at];
  let out = '';
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      const next = text[i + 1];
      if (next !== quote && next !== '\\') return null;
      out += next;
      i++;
    } else if (c === quote) {
      return text[i + 1] === ']' ? [out, i + 2] : null;
    } else if (c.charCodeAt(0) < 0x20) {
      return null; // the grammar's quoted text starts at %x20
    } else out += c;
  }
  return null;
}

/** One step at `at`: `.name`, `[index]` or `["quoted"]` (a bare name when `leading`); null when none is valid. */
function step(text: string, at: number, leading: boolean): [Step, number] | null {
  if (leading || text[at] === '.') {
    const from = leading ? at : at + 1;
    const match = NAME.exec(text.slice(from));
    if (!match) return null;
    return [{ kind: 'name', name: match[0] }, from + match[0].length];
  }
  if (text[at] !== '[') return null;
  const q = text[at + 1];
  if (q === '"' || q === "'") {
    const read = quoted(text, at + 1);
    return read ? [{ kind: 'name', name: read[0] }, read[1]] : null;
  }
  const match = /^(0|[1-9][0-9]*)\]/.exec(text.slice(at + 1));
  if (!match) return null;
  return [{ kind: 'index', index: Number(match[1]) }, at + 1 + match[0].length];
}

/** A field path's steps (§2.1 `field`): the first may be a bare name or an index; null on any error. */
export function parseSteps(text: string): Step[] | null {
  if (text.length === 0 || text.length > MAX_LENGTH) return null;
  const steps: Step[] = [];
  let at = 0;
  while (at < text.length) {
    const next = step(text, at, at === 0 && text[0] !== '[');
    if (!next) return null;
    steps.push(next[0]);
    at = next[1];
  }
  return steps;
}

export function parseBinding(text: string): ParsedBinding | null {
  const steps = parseSteps(text);
  const [first, second, ...rest] = steps ?? [];
  // A ref is a name or a quoted bracket; an index cannot name a datasource.
  if (first?.kind !== 'name') return null;
  if (first.name === 'datasources' && text[0] !== '[') {
    // Bare, it is the title "datasources", which no datasource may have: it parses, and never resolves.
    if (second === undefined) return { ref: { byId: false, key: first.name }, steps: [] };
    if (second.kind !== 'name') return null;
    return { ref: { byId: true, key: second.name }, steps: rest };
  }
  return { ref: { byId: false, key: first.name }, steps: second ? [second, ...rest] : [] };
}

export function isBinding(text: string): boolean {
  return parseBinding(text) !== null;
}

/** A row-relative field path; `""` is the row itself. */
export function isFieldPath(text: string): boolean {
  return text === '' || parseSteps(text) !== null;
}

/** Every `{{ … }}` placeholder holds a valid binding (§2.3); an unclosed `{{` is literal text. */
export function isTemplate(text: string): boolean {
  let from = 0;
  for (;;) {
    const open = text.indexOf('{{', from);
    if (open < 0) return true;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return true;
    if (!isBinding(text.slice(open + 2, close).replace(/^ +| +$/g, ''))) return false;
    from = close + 2;
  }
}
