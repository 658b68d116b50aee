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
  code: 'PAYLOAD_TOO_LARGE' | 'OPERATION_TOO_LARGE' | 'OPERATION_TOO_DEEP';
  message: string;
  /** HTTP status when it is not the GraphQL-over-HTTP default. */
  status?: number;
}

const OPENERS = new Set<string>([TokenKind.BRACE_L, TokenKind.PAREN_L, TokenKind.BRACKET_L]);
const CLOSERS = new Set<string>([TokenKind.BRACE_R, TokenKind.PAREN_R, TokenKind.BRACKET_R]);

/**
 * The request-level limits checked before a document is parsed or cached: size in bytes, then
 * tokens and nesting in one pass of graphql-js's own lexer that stops at the first limit, so a
 * hostile document costs at most `MAX_TOKENS` tokens of lexing. A document the lexer cannot read
 * passes: the parser reports its syntax error as usual.
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
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      tokens += 1;
      if (tokens > MAX_TOKENS) {
        return { code: 'OPERATION_TOO_LARGE', message: `Operation has more than ${MAX_TOKENS} tokens` };
      }
      if (OPENERS.has(token.kind)) {
        nesting += 1;
        if (nesting > MAX_NESTING) {
          return { code: 'OPERATION_TOO_DEEP', message: `Operation nesting exceeds ${MAX_NESTING}` };
        }
      } else if (CLOSERS.has(token.kind)) nesting -= 1;
    }
  } catch {
    return undefined;
  }
  return undefined;
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

/** Parse and validation caches together (issue 10: at most 50 MB). */
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
