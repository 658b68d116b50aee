// The schema error report of spec/winding.md §2.7.
import type { SchemaIssue } from './validate.ts';

const MAX_LISTED = 100;

export function formatSchemaReport(
  path: string,
  issues: readonly SchemaIssue[],
  model = 'WindDefinition',
): string {
  const n = issues.length;
  const lines = [
    `Wind definition at ${path} failed validation: ${n} validation error${n === 1 ? '' : 's'} for ${model}`,
  ];
  for (const issue of issues.slice(0, MAX_LISTED)) lines.push(formatSchemaIssue(issue));
  if (n > MAX_LISTED) lines.push(`(${n - MAX_LISTED} more errors not shown)`);
  return lines.join('\n');
}

/** One error's lines of the report: `{loc}` (omitted when empty) and `  {msg} [type={type}]`. */
export function formatSchemaIssue(issue: SchemaIssue): string {
  const line = `  ${issue.msg} [type=${issue.type}]`;
  return issue.loc.length > 0 ? `${issue.loc.join('.')}\n${line}` : line;
}
