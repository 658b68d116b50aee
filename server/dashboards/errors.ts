// The dashboards' messages of spec §4; the error they travel in is ServiceError (server/errors.ts).

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
