// @vitest-environment jsdom
// The panel's controls follow the contract's state predicates and the control access.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
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
  const done = vi.fn(async () => {});
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
    refreshPorts: done,
    connect: done,
    disconnect: done,
    pause: done,
    resume: done,
    cancel: done,
    feedOverride: vi.fn(async () => {}),
    reset: vi.fn(async () => {}),
    home: vi.fn(async () => {}),
    jog: vi.fn(async () => {}),
    zero: vi.fn(async () => {}),
    readPosition: vi.fn(async () => {}),
    motorsOff: vi.fn(async () => {}),
    sendCommand: vi.fn(async () => true),
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

  it('names the running job from the status, not the open program, and says where it is', () => {
    const machine = view('streaming');
    machine.status = {
      ...(machine.status as MachineStatus),
      program: { name: 'from-cli.gcode', sha256: 'ab'.repeat(32), total: 1000 },
    };
    render(<MachinePanel machine={machine} program={program} />);
    expect(screen.getByTestId('running-job').textContent).toBe('Job: from-cli.gcode');
    expect(screen.getByText('part.wind')).toBeTruthy();
  });

  it('after an e-stop offers "Reset controller"; the feed override is sent when let go', () => {
    const stopped = view('error');
    render(<MachinePanel machine={stopped} program={program} />);
    fireEvent.click(button('Reset controller'));
    expect(stopped.reset).toHaveBeenCalledTimes(1);
    cleanup();
    const running = view('streaming');
    render(<MachinePanel machine={running} program={program} />);
    expect(screen.queryByRole('button', { name: 'Reset controller' })).toBeNull();
    const slider = screen.getByRole('slider', { name: 'Feed override' }) as HTMLInputElement;
    expect(slider.disabled).toBe(false);
    fireEvent.change(slider, { target: { value: '80' } });
    expect(screen.getByTestId('feed-override').textContent).toBe('80 %');
    fireEvent.keyUp(slider, { key: 'ArrowLeft' });
    expect(running.feedOverride).toHaveBeenCalledWith(80);
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
    expect(screen.getByTestId('control-disabled').textContent).toBe(reason);
    expect(screen.getByTestId('jog-disabled').textContent).toBe(reason);
    expect(button('Jog X+').disabled).toBe(true);
    expect(button('Send command').disabled).toBe(true);
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

  it('manual control: buttons and keys jog by the chosen step and feed; a held key does not repeat', () => {
    const machine = view('ready');
    render(<MachinePanel machine={machine} program={program} />);
    fireEvent.click(button('Jog X+'));
    fireEvent.click(button('Jog A\u2212'));
    expect(machine.jog).toHaveBeenNthCalledWith(1, 'X', 1, 1000);
    expect(machine.jog).toHaveBeenNthCalledWith(2, 'A', -1, 1000);
    fireEvent.change(screen.getByRole('combobox', { name: 'Jog step' }), { target: { value: '10' } });
    fireEvent.change(screen.getByRole('combobox', { name: 'Jog feed' }), { target: { value: '3000' } });
    const pad = screen.getByTestId('jog-pad');
    fireEvent.keyDown(pad, { key: 'PageDown' });
    fireEvent.keyDown(pad, { key: 'ArrowLeft' });
    fireEvent.keyDown(pad, { key: 'ArrowUp' });
    fireEvent.keyDown(pad, { key: 'ArrowUp', repeat: true });
    fireEvent.keyDown(pad, { key: 'PageUp' });
    fireEvent.keyDown(pad, { key: 'ArrowRight' });
    fireEvent.keyDown(pad, { key: 'ArrowDown' });
    expect((machine.jog as ReturnType<typeof vi.fn>).mock.calls.slice(2)).toEqual([
      ['B', -10, 3000],
      ['X', -10, 3000],
      ['A', 10, 3000],
      ['B', 10, 3000],
      ['X', 10, 3000],
      ['A', -10, 3000],
    ]);
    fireEvent.click(button('Home all'));
    fireEvent.click(button('Home B'));
    fireEvent.click(button('Set zero'));
    fireEvent.click(button('Motors off'));
    fireEvent.click(button('Read position'));
    expect(machine.home).toHaveBeenCalledWith('all');
    expect(machine.home).toHaveBeenCalledWith('B');
    expect(machine.zero).toHaveBeenCalledOnce();
    expect(machine.motorsOff).toHaveBeenCalledOnce();
    expect(machine.readPosition).toHaveBeenCalledOnce();
    expect(screen.getByTestId('position').textContent).toBe('Position: not read yet');
  });

  it('manual control is off with the reason while a job runs or is paused', () => {
    for (const [state, reason] of [
      ['streaming', 'Manual control is off while a job runs.'],
      ['paused', 'Manual control is off while a job is paused; cancel the job first.'],
      ['idle', 'Connect to the controller to use manual control.'],
    ] as const) {
      const machine = view(state);
      render(<MachinePanel machine={machine} program={program} />);
      expect(screen.getByTestId('jog-disabled').textContent, state).toBe(reason);
      for (const name of ['Jog X+', 'Jog B\u2212', 'Home all', 'Set zero', 'Motors off', 'Read position'])
        expect(button(name).disabled, `${state} ${name}`).toBe(true);
      expect((screen.getByRole('textbox', { name: 'Command' }) as HTMLInputElement).disabled).toBe(true);
      fireEvent.keyDown(screen.getByTestId('jog-pad'), { key: 'ArrowRight' });
      expect(machine.jog).not.toHaveBeenCalled();
      cleanup();
    }
  });

  it('shows the position the controller reported', () => {
    const machine = view('ready');
    render(
      <MachinePanel
        machine={{
          ...machine,
          status: { ...(machine.status as MachineStatus), position: { x: 12.5, a: -90, b: 7.25 } },
        }}
        program={program}
      />,
    );
    expect(screen.getByTestId('position').textContent).toBe('Position: X 12.50 mm · A -90.00 ° · B 7.25 °');
  });

  it('the console sends a line, clears it once answered, and recalls earlier lines with ↑ and ↓', async () => {
    const machine = view('ready');
    render(<MachinePanel machine={machine} program={program} />);
    const input = screen.getByRole('textbox', { name: 'Command' }) as HTMLInputElement;
    for (const line of ['M114', 'G28 X']) {
      fireEvent.change(input, { target: { value: line } });
      await act(async () => {
        fireEvent.click(button('Send command'));
      });
    }
    expect(machine.sendCommand).toHaveBeenNthCalledWith(1, 'M114');
    expect(machine.sendCommand).toHaveBeenNthCalledWith(2, 'G28 X');
    expect(input.value).toBe('');
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(input.value).toBe('G28 X');
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(input.value).toBe('M114');
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(input.value).toBe('');
    // A refused line stays to be corrected.
    (machine.sendCommand as ReturnType<typeof vi.fn>).mockResolvedValueOnce(false);
    fireEvent.change(input, { target: { value: 'G1 X1*3' } });
    await act(async () => {
      fireEvent.click(button('Send command'));
    });
    expect(input.value).toBe('G1 X1*3');
  });
});
