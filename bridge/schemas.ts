// Input fields of spec §3.1 and the result shapes of §9, as zod schemas: the same schema validates
// CLI and MCP input and becomes the JSON Schema that tools/list publishes.
import { z } from 'zod';
import { isRealDate, parseIsoTime } from './dates.ts';

const MAX_MS = Number.MAX_SAFE_INTEGER;

export const id = z
  .string({ error: 'must be a string' })
  .regex(/^[A-Za-z0-9_-]{1,200}$/, { error: 'must be 1 to 200 characters of A-Z, a-z, 0-9, _ or -' });

export const title = z.string({ error: 'must be a string' }).refine(
  (text) => {
    const length = [...text.trim()].length;
    return length >= 1 && length <= 1000;
  },
  { error: 'must be 1 to 1000 characters after trimming' },
);

export const notes = z
  .string({ error: 'must be a string' })
  .max(100_000, { error: 'must be at most 100000 characters' });
export const query = z
  .string({ error: 'must be a string' })
  .max(1000, { error: 'must be at most 1000 characters' });
export const bool = z.boolean({ error: 'must be true or false' });

const msError = { error: `must be an integer number of milliseconds from 0 to ${MAX_MS}` };
export const ms = z.int(msError).min(0, msError).max(MAX_MS, msError);

const plannedAtError = {
  error: 'must be integer milliseconds or an ISO date (YYYY-MM-DD[THH:MM[:SS[.sss]]][Z|±HH:MM])',
};
export const plannedAt = z.union(
  [ms, z.string().refine((text) => parseIsoTime(text) !== undefined, plannedAtError)],
  plannedAtError,
);

export const dueDay = z
  .string({ error: 'must be a date YYYY-MM-DD or null' })
  .refine(isRealDate, { error: 'must be a real date YYYY-MM-DD or null' })
  .nullable();

export const dueWithTime = ms.nullable();

export const tagIds = z
  .array(id, { error: 'must be a list of ids' })
  .max(1000, { error: 'must hold at most 1000 ids' })
  .refine((ids) => new Set(ids).size === ids.length, { error: 'must not repeat an id' });

export const source = z.enum(['active', 'archived', 'all'], { error: 'must be active, archived or all' });

const limitError = { error: 'must be an integer from 1 to 100000' };
export const limit = z.int(limitError).min(1, limitError).max(100_000, limitError);
const offsetError = { error: 'must be an integer from 0 to 100000' };
export const offset = z.int(offsetError).min(0, offsetError).max(100_000, offsetError);

export const none = z.strictObject({});

const taskFields = {
  notes: notes.optional(),
  projectId: id.nullable().optional(),
  tagIds: tagIds.optional(),
  plannedAt: plannedAt.optional(),
  dueDay: dueDay.optional(),
  dueWithTime: dueWithTime.optional(),
  isDone: bool.optional(),
  timeEstimate: ms.optional(),
  timeSpent: ms.optional(),
};

export const createInput = z.strictObject({ title, ...taskFields, parentId: id.optional() });
export const updateInput = z.strictObject({ id, title: title.optional(), ...taskFields });
export const idInput = z.strictObject({ id });
export const setCurrentInput = z.strictObject({ taskId: id.nullable() });
export const listTasksInput = z.strictObject({
  query: query.optional(),
  projectId: id.optional(),
  tagId: id.optional(),
  includeDone: bool.optional(),
  source: source.optional(),
  limit: limit.optional(),
  offset: offset.optional(),
  full: bool.optional(),
});
export const listNamedInput = z.strictObject({
  query: query.optional(),
  limit: limit.optional(),
  offset: offset.optional(),
  full: bool.optional(),
});

export type CreateInput = z.infer<typeof createInput>;
export type UpdateInput = z.infer<typeof updateInput>;
export type ListTasksInput = z.infer<typeof listTasksInput>;
export type ListNamedInput = z.infer<typeof listNamedInput>;

// Result shapes (§9): task results and status allow extra keys, the bridge's own shapes are exact.
export const taskOutput = z.looseObject({ id: z.string() });
export const listOutput = z.strictObject({
  items: z.array(z.unknown()),
  truncated: z.boolean().optional(),
  returned: z.int().optional(),
  matched: z.int().optional(),
});
export const currentOutput = z.strictObject({ task: taskOutput.nullable() });
export const startOutput = z.strictObject({ currentTaskId: z.string() });
export const stopOutput = z.strictObject({ currentTaskId: z.null() });
export const setCurrentOutput = z.strictObject({ currentTaskId: z.string().nullable() });
export const archiveOutput = z.strictObject({ archived: z.literal(true), id: z.string() });
export const restoreOutput = z.strictObject({ restored: z.literal(true), id: z.string() });
export const statusOutput = z.looseObject({});
export const healthOutput = z.looseObject({
  hostUrl: z.string(),
  tokenSource: z.enum(['env', 'file', 'none']),
});
