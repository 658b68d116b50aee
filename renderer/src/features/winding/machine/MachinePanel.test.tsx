// @vitest-environment jsdom
// The panel's controls follow the contract's state predicates and the control access.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MachineState, MachineStatus } from '#engine/machine/types.ts';
import { MachinePanel } from './MachinePanel.tsx';
import { type MachineView, SIGN_IN_REASON } from './useMachine.ts';

afterEach(cleanup);

function view(
  state: MachineState,
  access: MachineView['access'] = { allowed: true },
  watch: MachineView['watch'] = { allowed: true },
): MachineView {
  const status: MachineStatus = {
    state,
    port: '/dev/ttyUSB0',
    baudRate: 250000,
    controller: null,
    job:
      state === 'streaming' || state === 'paused'
        ? {
            sent: 120,
            acknowledged: 118,
            total: 1000,
            line: 118,
            sourceLine: 121,
            command: 'G0 X1',
            elapsed_s: 12,
            remaining_s: 90,
          }
        : null,
  };
  const act = vi.fn(async () => {});
  return {
    status,
    live: true,
    log: [
      { seq: 1, kind: 'rx', text: 'ok' },
      { seq: 2, kind: 'rx', text: 'Resend: 7' },
      { seq: 3, kind: 'error', text: 'checksum mismatch' },
    ],
    ports: { ports: [] },
    access,
    watch,
    problem: null,
    refreshPorts: act,
    connect: act,
    disconnect: act,
    pause: act,
    resume: act,
    cancel: act,
    jobStarted: vi.fn(),
    say: vi.fn(),
  };
}

const program = { name: 'part.wind', start: vi.fn(async () => {}), dryRun: vi.fn(async () => {}) };
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

describe('machine panel', () => {
  it('while streaming: pause and cancel on, start and connect off, progress in lines', () => {
    render(<MachinePanel machine={view('streaming')} program={program} />);
    expect(button('Pause job').disabled).toBe(false);
    expect(button('Cancel job').disabled).toBe(false);
    expect(button('Resume job').disabled).toBe(true);
    expect(button('Start').disabled).toBe(true);
    expect(button('Connect').disabled).toBe(true);
    expect(button('Disconnect').disabled).toBe(true);
    const progress = screen.getByRole('progressbar', { name: 'Job progress' }) as HTMLProgressElement;
    expect(progress.value).toBe(118);
    expect(progress.max).toBe(1000);
    expect(screen.getByText(/120 of 1,000 lines sent/)).toBeTruthy();
    const log = screen.getByRole('log', { name: 'Machine log' });
    expect(log.querySelectorAll('li')).toHaveLength(3);
    fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'problems' } });
    expect([...log.querySelectorAll('li')].map((li) => li.textContent?.slice(2))).toEqual([
      'Resend: 7',
      'checksum mismatch',
    ]);
    fireEvent.change(screen.getByLabelText('Filter log'), { target: { value: 'checksum' } });
    expect(log.querySelectorAll('li')).toHaveLength(1);
  });

  it('ready: start on; paused: resume on', () => {
    render(<MachinePanel machine={view('ready')} program={program} />);
    expect(button('Start').disabled).toBe(false);
    expect(button('Pause job').disabled).toBe(true);
    cleanup();
    render(<MachinePanel machine={view('paused')} program={program} />);
    expect(button('Resume job').disabled).toBe(false);
    expect(button('Pause job').disabled).toBe(true);
  });

  it('in a LAN browser without control: every control off, and the reason shown', () => {
    const reason = 'Machine control is only allowed on the workstation itself.';
    render(<MachinePanel machine={view('ready', { allowed: false, reason })} program={program} />);
    for (const name of [
      'Start',
      'Pause job',
      'Resume job',
      'Cancel job',
      'Connect',
      'Disconnect',
      'Refresh ports',
    ]) {
      expect(button(name).disabled, name).toBe(true);
    }
    expect(screen.getByText(reason)).toBeTruthy();
    // The state is still shown.
    expect(screen.getByRole('status').textContent).toContain('State: ready');
  });

  it('in a LAN browser without a session: told to sign in, nothing else claimed', () => {
    const reason = 'Machine control is only allowed on the workstation itself.';
    render(
      <MachinePanel
        machine={{
          ...view('idle', { allowed: false, reason }, { allowed: false, reason: SIGN_IN_REASON }),
          status: null,
        }}
        program={null}
      />,
    );
    expect(screen.getByTestId('watch-disabled').textContent).toBe(SIGN_IN_REASON);
    expect(screen.getByRole('status').textContent).toContain('State: unknown');
  });

  it('signed in, the sign-in notice is gone', () => {
    render(<MachinePanel machine={view('streaming')} program={program} />);
    expect(screen.queryByTestId('watch-disabled')).toBeNull();
  });
});
