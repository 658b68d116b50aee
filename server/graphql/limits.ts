import {
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  Lexer,
  type SelectionSetNode,
  Source,
  TokenKind,
  type ValidationContext,
} from 'graphql';

export const MAX_DEPTH = 15;
export const MAX_ALIASES = 50;
export const MAX_FIELDS = 1000;

interface Counts {
  depth: number;
  aliases: number;
  fields: number;
}

/**
 * One validation rule for the three operation limits of §4. Fragments are expanded while walking,
 * so a fragment spread ten times counts ten times; a fragment cycle is left to the standard
 * `NoFragmentCycles` rule (the walk stops at a fragment already on the path).
 */
export function operationLimitsRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return {
    OperationDefinition(operation) {
      const counts: Counts = { depth: 0, aliases: 0, fields: 0 };
      // Bails out early once any limit is exceeded so hostile documents cost little.
      const exceeded = () =>
        counts.depth > MAX_DEPTH || counts.aliases > MAX_ALIASES || counts.fields > MAX_FIELDS;
      const walk = (selectionSet: SelectionSetNode, depth: number, path: Set<string>) => {
        for (const selection of selectionSet.selections) {
          if (exceeded()) return;
          if (selection.kind === Kind.FIELD) {
            counts.fields += 1;
            if (selection.alias) counts.aliases += 1;
            counts.depth = Math.max(counts.depth, depth);
            if (selection.selectionSet) walk(selection.selectionSet, depth + 1, path);
          } else if (selection.kind === Kind.INLINE_FRAGMENT) {
            walk(selection.selectionSet, depth, path);
          } else {
            const name = selection.name.value;
            const fragment = fragments.get(name);
            if (!fragment || path.has(name)) continue;
            path.add(name);
            walk(fragment.selectionSet, depth, path);
            path.delete(name);
          }
        }
      };
      walk(operation.selectionSet, 1, new Set());
      if (counts.depth > MAX_DEPTH) {
        context.reportError(
          new GraphQLError(`Operation depth exceeds ${MAX_DEPTH}`, {
            nodes: [operation],
            extensions: { code: 'OPERATION_TOO_DEEP' },
          }),
        );
      } else if (counts.aliases > MAX_ALIASES) {
        context.reportError(
          new GraphQLError(`Operation has more than ${MAX_ALIASES} aliases`, {
            nodes: [operation],
            extensions: { code: 'OPERATION_TOO_MANY_ALIASES' },
          }),
        );
      } else if (counts.fields > MAX_FIELDS) {
        context.reportError(
          new GraphQLError(`Operation has more than ${MAX_FIELDS} fields`, {
            nodes: [operation],
            extensions: { code: 'OPERATION_TOO_LARGE' },
          }),
        );
      }
    },
  };
}

/** Largest query text (UTF-8 bytes) looked at; bigger ones get 413 before any lexing. */
export const MAX_QUERY_BYTES = 100_000;
/** Most tokens a document may have (graphql-js counts them the same way for its `maxTokens`). */
export const MAX_TOKENS = 10_000;
/**
 * Deepest bracket nesting (`{`, `(`, `[`) a document may have. graphql-js parses and validates
 * recursively, so nesting is bounded before it does (a 5,000-deep selection overflowed its stack);
 * any operation within the depth limit of 15 stays far below it.
 */
export const MAX_NESTING = 100;

export interface DocumentRejection {
  code: 'PAYLOAD_TOO_LARGE' | 'OPERATION_TOO_LARGE' | 'OPERATION_TOO_DEEP' | 'OPERATION_TOO_MANY_ALIASES';
  message: string;
  /** HTTP status when it is not the GraphQL-over-HTTP default. */
  status?: number;
  /** Offset in the query of the definition refused, where the validation rule would point. */
  position?: number;
}

const OPENERS = new Set<string>([TokenKind.BRACE_L, TokenKind.PAREN_L, TokenKind.BRACKET_L]);
const CLOSERS = new Set<string>([TokenKind.BRACE_R, TokenKind.PAREN_R, TokenKind.BRACKET_R]);

/** What one top-level definition selects in its own text, fragments not expanded. */
interface DefinitionCounts extends Counts {
  start: number;
  /** The fragment's name; undefined for an operation. */
  fragment?: string;
  spreads: Set<string>;
}

/** The rule's answer, in its order, for counts over a limit; undefined while within them. */
function overLimit(counts: Counts): DocumentRejection | undefined {
  if (counts.depth > MAX_DEPTH)
    return { code: 'OPERATION_TOO_DEEP', message: `Operation depth exceeds ${MAX_DEPTH}` };
  if (counts.aliases > MAX_ALIASES)
    return { code: 'OPERATION_TOO_MANY_ALIASES', message: `Operation has more than ${MAX_ALIASES} aliases` };
  if (counts.fields > MAX_FIELDS)
    return { code: 'OPERATION_TOO_LARGE', message: `Operation has more than ${MAX_FIELDS} fields` };
  return undefined;
}

/**
 * Each operation's counts with every fragment it reaches counted once: no more than the rule counts
 * with fragments expanded (it expands each spread, at least once), so a document over a limit here
 * is one the rule refuses too.
 */
function overLimitWithFragments(definitions: DefinitionCounts[]): DocumentRejection | undefined {
  const fragments = new Map<string, DefinitionCounts>();
  for (const definition of definitions)
    if (definition.fragment !== undefined) fragments.set(definition.fragment, definition);
  for (const operation of definitions) {
    if (operation.fragment !== undefined) continue;
    const counts: Counts = { ...operation };
    const seen = new Set<string>();
    const pending = [...operation.spreads];
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      const fragment = fragments.get(name);
      if (seen.has(name) || !fragment) continue;
      seen.add(name);
      counts.fields += fragment.fields;
      counts.aliases += fragment.aliases;
      counts.depth = Math.max(counts.depth, fragment.depth);
      pending.push(...fragment.spreads);
    }
    const rejection = overLimit(counts);
    if (rejection) return { ...rejection, position: operation.start };
  }
  return undefined;
}

/** An open bracket: a selection set (with the field depth inside it) or part of a value. */
type Bracket = { selection: true; depth: number } | { selection: false };

/**
 * The request-level limits checked before a document is parsed or cached, all in one pass of
 * graphql-js's own lexer that stops at the first limit crossed, so a refused document costs at most
 * the lexing of `MAX_TOKENS` tokens (about 1,000 for one with too many fields): size in bytes, then
 * tokens, bracket nesting, and each definition's fields, aliases and depth as the operation-limits
 * rule counts them (fragments are counted once per operation that reaches them, which is no more
 * than the rule's expansion). A document the lexer cannot read passes: the parser reports its
 * syntax error as usual; a document within these counts is parsed and validated in full.
 */
export function checkDocument(query: string): DocumentRejection | undefined {
  // Cheap bound first: UTF-8 takes at most 3 bytes per UTF-16 unit.
  if (query.length * 3 > MAX_QUERY_BYTES && Buffer.byteLength(query, 'utf8') > MAX_QUERY_BYTES) {
    return {
      code: 'PAYLOAD_TOO_LARGE',
      message: `Query is larger than ${MAX_QUERY_BYTES} bytes`,
      status: 413,
    };
  }
  const lexer = new Lexer(new Source(query));
  const definitions: DefinitionCounts[] = [];
  const brackets: Bracket[] = [];
  let definition: DefinitionCounts | undefined;
  let tokens = 0;
  // What the previous token makes of a name inside a selection set.
  let previous: string = TokenKind.SOF;
  let typeCondition = false;
  let inlineFragment = false;
  let fragmentName = false;
  // The rule looks at its counts before each selection and at the end of the operation.
  const checked = () => {
    const rejection = definition && overLimit(definition);
    return rejection && { ...rejection, position: definition?.start };
  };
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      tokens += 1;
      if (tokens > MAX_TOKENS) {
        return { code: 'OPERATION_TOO_LARGE', message: `Operation has more than ${MAX_TOKENS} tokens` };
      }
      const kind = token.kind;
      const top = brackets[brackets.length - 1];
      if (!top) {
        // Between brackets at the top level: a definition's keyword, name, or the end of its header.
        if (!definition) {
          const fragment = kind === TokenKind.NAME && token.value === 'fragment';
          definition = { start: token.start, depth: 0, aliases: 0, fields: 0, spreads: new Set() };
          definitions.push(definition);
          fragmentName = fragment;
        } else if (fragmentName && kind === TokenKind.NAME) {
          definition.fragment = token.value;
          fragmentName = false;
        }
      } else if (top.selection && kind === TokenKind.NAME) {
        if (previous === TokenKind.SPREAD) {
          if (token.value === 'on') typeCondition = true;
          else {
            definition?.spreads.add(token.value);
            inlineFragment = false;
          }
        } else if (typeCondition) typeCondition = false;
        else if (previous !== TokenKind.AT && previous !== TokenKind.COLON && definition) {
          const rejection = checked();
          if (rejection) return rejection;
          definition.fields += 1;
          definition.depth = Math.max(definition.depth, top.depth);
        }
      } else if (top.selection && kind === TokenKind.COLON && definition) {
        definition.aliases += 1;
      } else if (top.selection && kind === TokenKind.SPREAD) {
        const rejection = checked();
        if (rejection) return rejection;
        inlineFragment = true;
      }
      if (OPENERS.has(kind)) {
        if (brackets.length >= MAX_NESTING) {
          return { code: 'OPERATION_TOO_DEEP', message: `Operation nesting exceeds ${MAX_NESTING}` };
        }
        if (kind !== TokenKind.BRACE_L || (top && !top.selection)) brackets.push({ selection: false });
        else if (!top) brackets.push({ selection: true, depth: 1 });
        // An inline fragment's selections stay at its own depth; a field's go one deeper.
        else brackets.push({ selection: true, depth: inlineFragment ? top.depth : top.depth + 1 });
        if (kind === TokenKind.BRACE_L) inlineFragment = false;
      } else if (CLOSERS.has(kind)) {
        brackets.pop();
        if (brackets.length === 0 && kind === TokenKind.BRACE_R) {
          const rejection = checked();
          if (rejection) return rejection;
          definition = undefined;
        }
      }
      previous = kind;
    }
  } catch {
    return undefined;
  }
  return overLimitWithFragments(definitions);
}

/**
 * A least-recently-used cache bounded by the summed weight of its entries (an estimate of their
 * bytes), for yoga's parse and validation caches. Keys are whole query texts, so counting entries
 * alone bounds nothing: 1,024 entries of 5 MB documents took the core to an out-of-memory abort.
 */
export class ByteBoundedCache<V> {
  readonly #entries = new Map<string, { value: V; weight: number }>();
  readonly #maxBytes: number;
  readonly #maxEntryBytes: number;
  readonly #weigh: (key: string, value: V) => number;
  #bytes = 0;

  /** Entries weighing more than `maxEntryBytes` (default: the whole budget) are not kept at all. */
  constructor(maxBytes: number, weigh: (key: string, value: V) => number, maxEntryBytes = maxBytes) {
    this.#maxBytes = maxBytes;
    this.#maxEntryBytes = Math.min(maxBytes, maxEntryBytes);
    this.#weigh = weigh;
  }

  /** Summed weight of the entries held. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Map order is insertion order: re-inserting marks the entry most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): this {
    this.delete(key);
    const weight = this.#weigh(key, value);
    if (weight > this.#maxEntryBytes) return this;
    this.#entries.set(key, { value, weight });
    this.#bytes += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.weight;
    }
    return this;
  }

  /** The value without marking it recently used. */
  peek(key: string): V | undefined {
    return this.#entries.get(key)?.value;
  }

  delete(key: string): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    this.#bytes -= entry.weight;
    return true;
  }
}

/** Parse and validation caches together: bounded in bytes, so hostile documents cannot grow the heap. */
export const CACHE_BUDGET_BYTES = 50 * 1024 * 1024;
const ERROR_CACHE_BYTES = 5 * 1024 * 1024;
/** Measured: a parsed document holds about 500 bytes per token (node, name, location, token). */
const BYTES_PER_TOKEN = 600;
/**
 * The validation result cached beside each document (graphql-js stops at 100 errors), plus the
 * entry's own overhead.
 */
const VALIDATION_ALLOWANCE_BYTES = 64 * 1024;
/**
 * Heaviest document kept (about 3,000 tokens): the operations clients repeat are far smaller, and a
 * stream of large distinct documents churning through the cache was what grew the core's heap
 * (each one lived long enough to reach V8's old generation: 1.4 GB peak RSS under the hostile-
 * document bench with every document cached, 0.3 GB without the large ones).
 */
export const MAX_CACHED_DOCUMENT_BYTES = 2 * 1024 * 1024;

function tokenCount(document: DocumentNode): number {
  let count = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) count += 1;
  return count;
}

/**
 * yoga's `parserAndValidationCache` (`options`): parsed documents and parse errors, both keyed by
 * the whole query text, bounded together in bytes; and `validation`, a plugin that keeps the
 * validation result of a document while, and only while, that document is in the cache. yoga's own
 * validation cache is off: it keys every validated document in a WeakMap, and an ephemeron entry
 * keeps a document and its error list alive through every minor GC, so a stream of large distinct
 * documents (none of them cacheable) was promoted whole to the old generation (1.07 GB peak RSS
 * under the hostile-document bench, 0.41 GB without it).
 */
export function boundedParserCaches() {
  const documents = new ByteBoundedCache<DocumentNode>(
    CACHE_BUDGET_BYTES - ERROR_CACHE_BYTES,
    (query, document) =>
      2 * query.length + BYTES_PER_TOKEN * tokenCount(document) + VALIDATION_ALLOWANCE_BYTES,
    MAX_CACHED_DOCUMENT_BYTES,
  );
  /** The text each kept document was cached under. */
  const keyOf = new WeakMap<DocumentNode, string>();
  const documentCache = {
    get: (query: string) => documents.get(query),
    set: (query: string, document: DocumentNode) => {
      documents.set(query, document);
      if (documents.peek(query) === document) keyOf.set(document, query);
    },
    get bytes() {
      return documents.bytes;
    },
    get size() {
      return documents.size;
    },
  };
  const errorCache = new ByteBoundedCache<unknown>(ERROR_CACHE_BYTES, (query) => 2 * query.length + 4096);
  const results = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const isCached = (document: DocumentNode) => {
    const key = keyOf.get(document);
    return key !== undefined && documents.peek(key) === document;
  };
  const validation = {
    onValidate({
      params,
      setResult,
    }: {
      params: { documentAST: DocumentNode };
      setResult: (errors: readonly GraphQLError[]) => void;
    }) {
      const document = params.documentAST;
      if (!isCached(document)) return undefined;
      const known = results.get(document);
      if (known) return setResult(known);
      return ({ result }: { result: readonly GraphQLError[] }) => {
        if (isCached(document)) results.set(document, result);
      };
    },
  };
  return {
    documentCache,
    errorCache,
    options: { documentCache, errorCache, validationCache: false },
    validation,
  };
}
