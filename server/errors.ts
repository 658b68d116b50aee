/**
 * A start-up failure the user can fix (port taken, data dir unusable, bad setting). Its message is
 * the one line the CLI prints before exiting 1; no stack trace is shown for it.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** The codes an area service's outcome can carry (dashboard spec §4). */
export type ServiceErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS'
  | 'SERVICE_UNAVAILABLE';

/**
 * An outcome of an area service (accounts, dashboards, profiles) that callers must see, with the
 * codes and messages of dashboard spec §4. Each door maps it to its own shape in one place
 * (GraphQL: `extensions.code` plus `extensions`).
 */
export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly code: ServiceErrorCode;
  readonly extensions: Record<string, unknown>;

  constructor(code: ServiceErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.extensions = extensions;
  }
}
