import { type DocumentNode, type ExecutionResult, Kind, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Store } from '../db/store.ts';
import type { RequestContext } from './context.ts';

/**
 * Root Query fields whose answer is a function of the stored rows and the calling user alone: no
 * clock, no side effect (no audit, no counter), no configuration that changes while serving. The
 * dashboard list is the LAN's hot read (the bench's `dashboards.list_300_of_1000.rate`: ≥ 1,000
 * requests/s for 300 of 1,000 dashboards).
 */
const STORED_READS = new Set(['dashboards', 'dashboard']);

/** Answers kept; each is one user's list, so a shop's screens fit many times over. */
export const READ_CACHE_ENTRIES = 256;
/** Variables longer than this are not worth a key (the cached fields take one short id at most). */
const MAX_KEY_VARIABLES = 512;

function operationOf(document: DocumentNode, name: string | null | undefined) {
  let found: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (name ? definition.name?.value === name : found === undefined) found = definition;
    else if (!name) return undefined; // several operations and no name: yoga refuses it anyway
  }
  return found;
}

/** Only a query whose root is nothing but stored-read fields (and __typename) is cacheable. */
function isStoredRead(operation: OperationDefinitionNode | undefined): boolean {
  if (operation?.operation !== 'query' || operation.directives?.length) return false;
  return operation.selectionSet.selections.every(
    (selection) =>
      selection.kind === Kind.FIELD &&
      !selection.directives?.length &&
      (STORED_READS.has(selection.name.value) || selection.name.value === '__typename'),
  );
}

/**
 * Keeps the answers of stored reads until any row is written. The caller is resolved afresh on every
 * request (session version, active flag, role) before the cache is asked, and the key holds the
 * user's id, so a cached answer reaches only the user it was computed for; any write anywhere (a
 * dashboard, an ACL entry, a user, the policy, a sign-in) empties the cache, so an answer is never
 * older than the last write. Error answers are not kept.
 */
export function useStoredReadCache(store: Store): Plugin<RequestContext> {
  let generation = '';
  const answers = new Map<string, ExecutionResult>();
  const documents = new WeakMap<DocumentNode, boolean>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as RequestContext;
      if (context.principal.kind !== 'user') return;
      let cacheable = documents.get(args.document);
      if (cacheable === undefined) {
        cacheable = isStoredRead(operationOf(args.document, args.operationName));
        documents.set(args.document, cacheable);
      }
      if (!cacheable) return;
      const variables = JSON.stringify(args.variableValues ?? {});
      if (variables.length > MAX_KEY_VARIABLES) return;
      const now = store.generation();
      if (now !== generation) {
        answers.clear();
        generation = now;
      }
      // The document object is yoga's parse-cache entry: one per distinct text, so its identity is
      // part of the key through a per-document id.
      const key = `${documentId(args.document)}\u0000${args.operationName ?? ''}\u0000${context.principal.user.id}\u0000${variables}`;
      const cached = answers.get(key);
      if (cached) {
        setResultAndStopExecution(cached);
        return;
      }
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result || result.errors?.length) return;
          // Written rows during execution (none for these fields) would make the answer stale.
          if (store.generation() !== generation) return;
          if (answers.size >= READ_CACHE_ENTRIES) {
            const oldest = answers.keys().next();
            if (!oldest.done) answers.delete(oldest.value);
          }
          // yoga serialises through `result.stringify` when present: the JSON is built once per entry.
          let json: string | undefined;
          const kept = Object.assign(result, {
            stringify: (value: unknown) => (json ??= JSON.stringify(value)),
          });
          answers.set(key, kept);
        },
      };
    },
  };
}

const ids = new WeakMap<DocumentNode, number>();
let nextId = 0;
function documentId(document: DocumentNode): number {
  let id = ids.get(document);
  if (id === undefined) {
    id = ++nextId;
    ids.set(document, id);
  }
  return id;
}
