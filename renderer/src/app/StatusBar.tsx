import { type DoorHealth, useDoorHealth } from '../lib/health.ts';

const STATE_TEXT: Record<DoorHealth['state'], string> = {
  checking: 'checking…',
  up: 'healthy',
  down: 'not answering',
  unknown: 'unknown',
};

function DoorIndicator({ id, label, health }: { id: string; label: string; health: DoorHealth }) {
  const detail = 'detail' in health ? `: ${health.detail}` : '';
  return (
    <span
      className={`door door--${health.state}`}
      data-testid={`door-${id}`}
      data-state={health.state}
      title={`${label} ${STATE_TEXT[health.state]}${detail}`}
    >
      <span className="door__light" aria-hidden="true" />
      {label}
      <span className="visually-hidden">: {STATE_TEXT[health.state]}</span>
    </span>
  );
}

export function StatusBar() {
  const { lan, winding } = useDoorHealth();
  return (
    <footer className="status-bar">
      <span data-testid="version">Towpath {lan.state === 'up' ? lan.version : '…'}</span>
      <span className="status-bar__doors">
        <DoorIndicator id="lan" label="LAN door" health={lan} />
        <DoorIndicator id="winding" label="Winding door" health={winding} />
      </span>
    </footer>
  );
}
