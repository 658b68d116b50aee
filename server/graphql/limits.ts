import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
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
