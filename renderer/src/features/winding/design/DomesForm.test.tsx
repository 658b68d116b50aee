// @vitest-environment jsdom
// The Domes fieldset: none / the same dome at both ends / a start and an end dome; each dome's
// type, polar opening and (ellipsoidal only) aspect, written into the working copy at their depth;
// the validator's messages at the field; the first dome on a 1.0 definition declares 1.1.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useReducer } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { analyse } from './analysis.ts';
import { DomesForm } from './DomesForm.tsx';
import { loadedCopy, type WorkingCopy, workingCopyReducer } from './working-copy.ts';

afterEach(cleanup);

const tube = JSON.stringify({
  schemaVersion: '1.0',
  layers: [{ windType: 'hoop' }],
  mandrel_parameters: { diameter: 150, wind_length: 300 },
  towParameters: { width: 6, thickness: 0.3 },
  defaultFeedRate: 6000,
});

let latest: WorkingCopy | null = null;
function Harness({ text }: { text: string }) {
  const [copy, dispatch] = useReducer(workingCopyReducer, loadedCopy('tank.wind', text));
  latest = copy;
  return (
    <DomesForm
      analysis={analyse(copy?.text ?? '', 'tank.wind')}
      onEdit={(edit, typing) => dispatch({ type: 'edit', edit, typing })}
    />
  );
}

type Json = Record<string, unknown>;
const saved = () => JSON.parse(latest?.text ?? '{}') as Json;
const domes = () => (saved().mandrel_parameters as Json).domes as Json | undefined;
const errorOf = (control: HTMLElement) =>
  (control.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id))
    .find((node) => node?.dataset.testid === 'field-error')?.textContent ?? null;

describe('domes form', () => {
  it('adds the same dome at both ends, declares 1.1, and says a polar opening is required', () => {
    render(<Harness text={tube} />);
    expect((screen.getByRole('radio', { name: 'None (a tube or a cone)' }) as HTMLInputElement).checked).toBe(
      true,
    );
    expect(screen.queryByRole('combobox', { name: 'Dome type' })).toBeNull();

    act(() => fireEvent.click(screen.getByRole('radio', { name: 'The same dome at both ends' })));
    expect(saved().schemaVersion).toBe('1.1');
    expect(domes()).toEqual({ both: { type: 'hemispherical' } });
    // The file's own spelling of the section is kept.
    expect(saved()).not.toHaveProperty('mandrelParameters');
    const both = screen.getByRole('group', { name: 'Dome at both ends' });
    const opening = within(both).getByRole('spinbutton', { name: 'Polar opening diameter (mm)' });
    expect(errorOf(opening)).toBe('Field required');
    expect(latest?.past).toHaveLength(1);

    act(() => fireEvent.change(opening, { target: { value: '40' } }));
    expect(domes()).toEqual({ both: { type: 'hemispherical', polarOpeningDiameter: 40 } });
    expect(latest?.text).toContain('"polarOpeningDiameter": 40.0');
    expect(analyse(latest?.text ?? '', 'tank.wind').schemaReport).toBeNull();
  });

  it('shows the aspect only for an ellipsoidal dome, with the engine message until it is given', () => {
    render(<Harness text={tube} />);
    act(() => fireEvent.click(screen.getByRole('radio', { name: 'The same dome at both ends' })));
    expect(screen.queryByRole('spinbutton', { name: 'Aspect' })).toBeNull();
    // The validator checks a dome's shape once its fields are well-formed.
    act(() =>
      fireEvent.change(screen.getByRole('spinbutton', { name: 'Polar opening diameter (mm)' }), {
        target: { value: '40' },
      }),
    );
    act(() =>
      fireEvent.change(screen.getByRole('combobox', { name: 'Dome type' }), {
        target: { value: 'ellipsoidal' },
      }),
    );
    const aspect = screen.getByRole('spinbutton', { name: 'Aspect' });
    expect(errorOf(aspect)).toBe(
      'Value error, an ellipsoidal dome needs its aspect (height over the cylinder radius)',
    );
    act(() => fireEvent.change(aspect, { target: { value: '0.6' } }));
    expect(domes()).toMatchObject({ both: { aspect: 0.6 } });
    expect(errorOf(screen.getByRole('spinbutton', { name: 'Aspect' }))).toBeNull();
  });

  it('splits both into a start and an end dome, edits them apart, and removes the domes', () => {
    render(<Harness text={tube} />);
    act(() => fireEvent.click(screen.getByRole('radio', { name: 'The same dome at both ends' })));
    act(() =>
      fireEvent.change(screen.getByRole('spinbutton', { name: 'Polar opening diameter (mm)' }), {
        target: { value: '40' },
      }),
    );
    act(() => fireEvent.click(screen.getByRole('radio', { name: 'A start and an end dome' })));
    const dome = { type: 'hemispherical', polarOpeningDiameter: 40 };
    expect(domes()).toEqual({ start: dome, end: dome });
    const end = screen.getByRole('group', { name: 'End dome (after the wind length)' });
    act(() =>
      fireEvent.change(within(end).getByRole('combobox', { name: 'Dome type' }), {
        target: { value: 'isotensoid' },
      }),
    );
    expect(domes()).toEqual({ start: dome, end: { ...dome, type: 'isotensoid' } });

    act(() => fireEvent.click(screen.getByRole('radio', { name: 'None (a tube or a cone)' })));
    expect(saved().mandrel_parameters).toEqual({ diameter: 150, wind_length: 300 });
  });

  it("shows the validator's message for a missing end dome in that dome's fieldset", () => {
    const oneEnd = tube
      .replace('"1.0"', '"1.1"')
      .replace(
        '"wind_length":300',
        '"wind_length":300,"domes":{"start":{"type":"hemispherical","polarOpeningDiameter":40}}',
      );
    render(<Harness text={oneEnd} />);
    expect((screen.getByRole('radio', { name: 'A start and an end dome' }) as HTMLInputElement).checked).toBe(
      true,
    );
    const end = screen.getByRole('group', { name: 'End dome (after the wind length)' });
    expect(end.textContent).toContain(
      'Value error, a vessel needs a dome at each end: "end" is missing (or give "both")',
    );
  });
});
