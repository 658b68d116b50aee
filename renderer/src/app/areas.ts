/** The application's areas, in navigation order. Each gets its page from a later feature. */
export const AREAS = [
  { path: '/winding', label: 'Winding', summary: 'Plan, check, simulate and stream winding programs.' },
  { path: '/dashboards', label: 'Dashboards', summary: 'Edit and share dashboards.' },
  { path: '/tasks', label: 'Tasks', summary: "The operator's tasks from the task app." },
  { path: '/admin', label: 'Admin', summary: 'Users, sharing, credentials, service accounts and audit.' },
] as const;

export type Area = (typeof AREAS)[number];

export function areaFor(pathname: string): Area | undefined {
  return AREAS.find((area) => pathname === area.path || pathname.startsWith(`${area.path}/`));
}
