// Outcomes of the area services that callers must see, with the codes and messages of spec §4. Each
// door maps them to its own shape in one place (GraphQL: extensions.code).

export type ServiceErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS'
  | 'SERVICE_UNAVAILABLE';

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

export const DASHBOARD_NOT_FOUND = 'Dashboard not found';
export const USER_NOT_FOUND = 'User not found';
export const REVISION_NOT_FOUND = 'Dashboard revision not found';
export const NOT_ALLOWED = {
  edit: 'Not allowed to edit this dashboard',
  share: 'Not allowed to manage sharing of this dashboard',
  delete: 'Not allowed to delete this dashboard',
  transfer: 'Not allowed to transfer this dashboard',
} as const;
export const NO_PUBLISH = 'Editors are not allowed to publish dashboards';
export const SAFE_MODE = 'Trusted content is not allowed in SAFE execution mode';
export const CHANGED_SINCE_LOADED =
  'Dashboard was changed since you loaded it. Reload it and apply your changes again.';
export const OWNER_ACCESS = 'Owner access is managed through ownership only';
