// @vitest-environment jsdom
// "Resume from…": the suggested checkpoint chosen, only checkpoints the stopped job got past
// offered, the 3D preview following the choice, and the start carrying the choice and the tow.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_QUEUE_DEPTH, suggestCheckpoint } from '#engine/machine/resume.ts';
import { describeCheckpoint, readCheckpoints } from '#engine/plan/checkpoints.ts';
import { REFERENCE_ROOT } from '../../../../../reference/paths.ts';
import { ResumeButton } from './ResumeDialog.tsx';
import type { ResumeView } from './useResume.ts';

afterEach(cleanup);

const TEXT = readFileSync(join(REFERENCE_ROOT, 'conf_valid_helical', 'expected-xab.gcode'), 'utf8');
const READ = readCheckpoints(TEXT);
const ACKNOWLEDGED = 900;

function resumeView(stopped: ResumeView['stopped'] = { acknowledged: ACKNOWLEDGED, total: 26_000 }) {
  return {
    stopped,
    checkpoints: vi.fn(async () => READ),
    preview: vi.fn(),
    start: vi.fn(async () => ({ status: 202, body: {} })),
    line: null,
  } satisfies ResumeView;
}

describe('Resume from…', () => {
  it('is not offered when no job stopped', () => {
    render(<ResumeButton resume={resumeView(null)} blockedReason={null} onStarted={vi.fn()} />);
    expect(screen.queryByRole('button', { name: 'Resume from…' })).toBeNull();
  });

  it('chooses the suggested checkpoint, previews the choice and starts with the tow setting', async () => {
    const resume = resumeView();
    const onStarted = vi.fn();
    render(<ResumeButton resume={resume} blockedReason={null} onStarted={onStarted} />);
    fireEvent.click(screen.getByRole('button', { name: 'Resume from…' }));
    const choice = (await screen.findByRole('combobox', { name: 'Resume checkpoint' })) as HTMLSelectElement;
    const suggested = suggestCheckpoint(READ.checkpoints, ACKNOWLEDGED, DEFAULT_QUEUE_DEPTH);
    if (!suggested) throw new Error('the program has a checkpoint before line 880');
    expect(choice.value).toBe(String(suggested.index));
    const offered = [...choice.options].map((option) => option.text);
    expect(offered).toHaveLength(READ.checkpoints.filter((c) => c.command <= ACKNOWLEDGED).length);
    expect(offered[0]).toBe(
      `1. ${describeCheckpoint(READ.checkpoints[0] as never)} (line ${READ.checkpoints[0]?.line})`,
    );
    await waitFor(() => expect(resume.preview).toHaveBeenLastCalledWith(suggested.command));

    fireEvent.change(choice, { target: { value: '2' } });
    await waitFor(() => expect(resume.preview).toHaveBeenLastCalledWith(READ.checkpoints[1]?.command));
    const attached = screen.getByRole('checkbox', { name: 'Tow still attached' }) as HTMLInputElement;
    expect(attached.checked).toBe(true);
    fireEvent.click(attached);
    expect(screen.getByTestId('resume-plan').textContent).toMatch(/pauses for you to re-attach the tow/);
    fireEvent.click(screen.getByRole('button', { name: 'Start resumed job' }));
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith({ status: 202, body: {} }));
    expect(resume.start).toHaveBeenCalledWith(2, false);
    // The form closes and the 3D view goes back to the job. React runs an unmounted component's
    // effect clean-ups after the commit, not in it, so the preview is reset a moment later.
    expect(screen.queryByRole('combobox', { name: 'Resume checkpoint' })).toBeNull();
    await waitFor(() => expect(resume.preview).toHaveBeenLastCalledWith(null));
  });

  it("counts back by the profile's queue depth, not the default", async () => {
    // 1100 acknowledged: 20 lines back the third checkpoint is certainly wound; 200 back it may not be.
    const acknowledged = 1100;
    const byDefault = suggestCheckpoint(READ.checkpoints, acknowledged, DEFAULT_QUEUE_DEPTH);
    const byProfile = suggestCheckpoint(READ.checkpoints, acknowledged, 200);
    if (!byDefault || !byProfile) throw new Error('the program has checkpoints before line 900');
    expect(byProfile.index).toBeLessThan(byDefault.index);
    render(
      <ResumeButton
        resume={resumeView({ acknowledged, total: 26_000 })}
        blockedReason={null}
        queueDepth={200}
        onStarted={vi.fn()}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Resume from…' }));
    const choice = (await screen.findByRole('combobox', { name: 'Resume checkpoint' })) as HTMLSelectElement;
    expect(choice.value).toBe(String(byProfile.index));
    expect(screen.getByText(/Up to 200 lines before that may not have been wound/)).toBeTruthy();
  });

  it('cannot start while the controller is not connected, and says why', async () => {
    render(
      <ResumeButton
        resume={resumeView()}
        blockedReason="Connect to the controller first."
        onStarted={vi.fn()}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Resume from…' }));
    await screen.findByRole('combobox', { name: 'Resume checkpoint' });
    expect((screen.getByRole('button', { name: 'Start resumed job' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    expect(screen.getByText('Connect to the controller first.')).toBeTruthy();
  });

  it('shows why a program cannot be resumed', async () => {
    const resume = {
      ...resumeView(),
      checkpoints: vi.fn(async () => Promise.reject(new Error('no comments'))),
    };
    render(<ResumeButton resume={resume} blockedReason={null} onStarted={vi.fn()} />);
    fireEvent.click(screen.getByRole('button', { name: 'Resume from…' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Cannot resume this program: no comments');
  });
});
