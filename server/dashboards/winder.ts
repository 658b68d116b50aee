// The ready "Winder" dashboard: when the first admin account is made (CREATE_ADMIN or the
// first-run setup), it gets a private dashboard on the workstation's own `machine` datasource, so
// the shop has a useful screen before anyone builds one.
import type { UserRow } from '../db/repositories/users.ts';
import type { Logger } from '../log.ts';
import type { DashboardService } from './service.ts';

export const WINDER_DASHBOARD = {
  title: 'Winder',
  version: 'towpath',
  columns: 3,
  width: 'lg',
  datasources: [{ id: 'winder', title: 'Winder', type: 'machine', settings: {} }],
  panes: [
    {
      id: 'job',
      title: 'Job',
      layout: { x: 0, y: 0, w: 2, h: 5 },
      widgets: [
        {
          id: 'w_job',
          type: 'text',
          title: 'Job',
          settings: { valueTemplate: '{{ Winder.jobName }} ({{ Winder.jobState }})' },
        },
        {
          id: 'w_progress',
          type: 'gauge',
          title: 'Progress',
          settings: {
            valuePath: 'datasources.winder.percent',
            min: 0,
            max: 100,
            precision: 1,
            unitText: '%',
          },
        },
        {
          id: 'w_lines',
          type: 'text',
          title: 'Lines sent',
          settings: { valueTemplate: '{{ Winder.linesSent }} / {{ Winder.linesTotal }}' },
        },
        {
          id: 'w_remaining',
          type: 'text',
          title: 'Remaining time',
          settings: { valuePath: 'Winder.remainingSeconds', format: 'duration' },
        },
      ],
    },
    {
      id: 'machine',
      title: 'Machine',
      layout: { x: 2, y: 0, w: 1, h: 5 },
      widgets: [
        {
          id: 'w_connected',
          type: 'indicator',
          title: 'Connection',
          settings: { valuePath: 'Winder.connected', onText: 'Connected', offText: 'Disconnected' },
        },
        { id: 'w_state', type: 'text', title: 'Job state', settings: { valuePath: 'Winder.jobState' } },
        { id: 'w_error', type: 'text', title: 'Last error', settings: { valuePath: 'Winder.lastError' } },
      ],
    },
  ],
  settings: {},
};

/** Makes the admin's Winder dashboard; a failure is logged and never undoes the account. */
export function createWinderDashboard(dashboards: DashboardService, admin: UserRow, logger: Logger): void {
  try {
    dashboards.create(admin, { ...structuredClone(WINDER_DASHBOARD), visibility: 'private' });
  } catch (error) {
    logger.error({ err: error }, 'could not create the Winder dashboard for the first admin');
  }
}
