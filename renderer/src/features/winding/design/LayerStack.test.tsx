// @vitest-environment jsdom
// The layer stack edits the working copy: its items are named "Layer N (type)", terminal layers
// are marked and a layer after one is flagged, the buttons and Alt+↑/↓ reorder, duplicate and
// delete, and the engine's messages sit beside the field they concern.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useReducer } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { analyse } from './analysis.ts';
import { LayerStack } from './LayerStack.tsx';
import { loadedCopy, workingCopyReducer } from './working-copy.ts';

afterEach(cleanup);

const definition = (layers: object[]) =>
  JSON.stringify({
    layers,
    mandrelParameters: { diameter: 70.0, windLength: 500.0 },
    towParameters: { width: 7.0, thickness: 0.5 },
    defaultFeedRate: 9000.0,
  });

const hoop = { windType: 'hoop', terminal: false };
const skip = { windType: 'skip', mandrelRotation: 45 };
const helical = {
  windType: 'helical',
  windAngle: 55,
  patternNumber: 5,
  skipIndex: 1,
  lockDegrees: 180,
  leadInMM: 10,
  leadOutDegrees: 20,
};

let latest = '';
function Harness({ text }: { text: string }) {
  const [copy, dispatch] = useReducer(workingCopyReducer, loadedCopy('part.wind', text));
  latest = copy?.text ?? '';
  const analysis = analyse(copy?.text ?? '', 'part.wind');
  return (
    <LayerStack analysis={analysis} onEdit={(edit, typing) => dispatch({ type: 'edit', edit, typing })} />
  );
}

const names = () =>
  within(screen.getByRole('list', { name: 'Layers' }))
    .getAllByRole('listitem')
    .map((item) => item.getAttribute('aria-label'));
const kinds = () => (JSON.parse(latest).layers as { windType: string }[]).map((layer) => layer.windType);

describe('LayerStack', () => {
  it('names each layer, marks a terminal one and flags a layer after it', () => {
    render(<Harness text={definition([hoop, { windType: 'hoop', terminal: true }, skip])} />);
    expect(names()).toEqual(['Layer 1 (hoop)', 'Layer 2 (hoop)', 'Layer 3 (skip)']);
    const second = screen.getByRole('listitem', { name: 'Layer 2 (hoop)' });
    expect(within(second).getByTestId('terminal-mark')).toBeTruthy();
    const third = screen.getByRole('listitem', { name: 'Layer 3 (skip)' });
    expect(within(third).getByTestId('after-terminal').textContent).toContain('terminal layer 2');
    // The planner's own refusal, on the layer it concerns.
    expect(within(third).getByTestId('layer-problem').textContent).toBe(
      'Layer 3: terminal layer must be the final entry in the definition',
    );
  });

  it('moves, duplicates and deletes layers through the buttons and Alt+arrow keys', () => {
    render(<Harness text={definition([hoop, skip, helical])} />);
    expect(screen.getByRole('button', { name: 'Move layer 1 up' }).hasAttribute('disabled')).toBe(true);
    expect(screen.getByRole('button', { name: 'Move layer 3 down' }).hasAttribute('disabled')).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Move layer 3 up' }));
    expect(kinds()).toEqual(['hoop', 'helical', 'skip']);
    fireEvent.keyDown(screen.getByRole('listitem', { name: 'Layer 1 (hoop)' }), {
      key: 'ArrowDown',
      altKey: true,
    });
    expect(kinds()).toEqual(['helical', 'hoop', 'skip']);
    // Without Alt, arrows are left to the page (scrolling); inside a field they are the field's.
    fireEvent.keyDown(screen.getByRole('listitem', { name: 'Layer 1 (helical)' }), { key: 'ArrowDown' });
    expect(kinds()).toEqual(['helical', 'hoop', 'skip']);
    fireEvent.click(screen.getByRole('button', { name: 'Duplicate layer 1' }));
    expect(kinds()).toEqual(['helical', 'helical', 'hoop', 'skip']);
    // The duplicate is a copy: editing it leaves the original alone.
    const copy = screen.getByRole('listitem', { name: 'Layer 2 (helical)' });
    fireEvent.change(within(copy).getByRole('spinbutton', { name: 'Wind angle (°)' }), {
      target: { value: '60' },
    });
    const layers = JSON.parse(latest).layers as { windAngle?: number }[];
    expect([layers[0]?.windAngle, layers[1]?.windAngle]).toEqual([55, 60]);
    fireEvent.click(screen.getByRole('button', { name: 'Delete layer 3' }));
    expect(kinds()).toEqual(['helical', 'helical', 'skip']);
    expect(names()).toEqual(['Layer 1 (helical)', 'Layer 2 (helical)', 'Layer 3 (skip)']);
  });

  it('shows the engine’s exact message beside a field, emptied or refused by the planner, without crashing', () => {
    render(<Harness text={definition([helical])} />);
    const layer = screen.getByRole('listitem', { name: 'Layer 1 (helical)' });
    const leadIn = within(layer).getByRole('spinbutton', { name: 'Lead-in (mm)' });
    act(() => {
      fireEvent.change(leadIn, { target: { value: '600' } });
    });
    const describedBy = () =>
      (leadIn.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent)
        .join(' ');
    expect(describedBy()).toContain(
      'Layer 1: leadInMM (600.0mm) must be less than the mandrel windLength (500.0mm); a longer lead-in drives the carriage off the mandrel into negative coordinates',
    );
    expect(leadIn.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(leadIn, { target: { value: '' } });
    expect(describedBy()).toContain('Field required');
    expect(JSON.parse(latest).layers[0]).not.toHaveProperty('leadInMM');
    const pattern = within(layer).getByRole('spinbutton', { name: 'Pattern number' });
    fireEvent.change(pattern, { target: { value: '2.5' } });
    const patternErrors = (pattern.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent)
      .join(' ');
    expect(patternErrors).toContain('Input should be a valid integer, got a number with a fractional part');
  });
});
