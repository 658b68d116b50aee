import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { HttpError } from '../http/http-error.ts';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Takes every request body as raw bytes: the winding door answers content-type and JSON problems
 * with its own messages (spec/winding.md §7.1) instead of fastify's 415s and parser errors.
 */
export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}

function isJsonContentType(header: string | undefined): boolean {
  const mediaType = (header ?? '').split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

/**
 * The request body as the route's schema reads it, or an HttpError 400 with the first applicable
 * message of §7.1: content type, JSON, object, then the first failing field in table order.
 */
export function readBody<S extends z.ZodObject>(request: FastifyRequest, schema: S): z.output<S> {
  if (!isJsonContentType(request.headers['content-type'])) {
    throw new HttpError(400, 'Invalid request body: Content-Type must be application/json');
  }
  let value: unknown;
  try {
    value = JSON.parse(STRICT_UTF8.decode(request.body as Uint8Array));
  } catch {
    throw new HttpError(400, 'Invalid request body: not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'Invalid request body: expected a JSON object');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, `Invalid request body: ${String(issue?.path[0])}: ${issue?.message}`);
  }
  return parsed.data;
}
