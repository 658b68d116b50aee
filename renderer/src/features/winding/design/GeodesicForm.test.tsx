// @vitest-environment jsdom
// Schema 1.1's fields in the forms: a geodesic layer's four auto-able fields each have an "Auto"
// checkbox beside a spinbutton, unticking it and typing writes the number into the working copy,
// ticking it again writes "auto"; the engine's message for a bad number sits at the field.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useReducer } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { analyse } from './analysis.ts';
import { fieldLabel, fieldsOf } from './fields.ts';
import { LayerStack } from './LayerStack.tsx';
import { loadedCopy, workingCopyReducer } from './working-copy.ts';

afterEach(cleanup);

const vessel = JSON.stringify({
  schemaVersion: '1.1',
  layers: [{ windType: 'geodesic' }],
  mandrelParameters: {
    diameter: 100,
    windLength: 200,
    domes: { both: { type: 'hemispherical', polarOpeningDiameter: 30 } },
  },
  towParameters: { width: 6, thickness: 0.3 },
  defaultFeedRate: 6000,
});

let latest = '';
function Harness({ text }: { text: string }) {
  const [copy, dispatch] = useReducer(workingCopyReducer, loadedCopy('tank.wind', text));
  latest = copy?.text ?? '';
  const analysis = analyse(copy?.text ?? '', 'tank.wind');
  return (
    <LayerStack analysis={analysis} onEdit={(edit, typing) => dispatch({ type: 'edit', edit, typing })} />
  );
}

const layer = () => (JSON.parse(latest) as { layers: Record<string, unknown>[] }).layers[0] ?? {};

describe('geodesic layer form', () => {
  it('labels the fields from the engine schema, with units and the Auto choice', () => {
    const labels = fieldsOf('GeodesicLayer').map(fieldLabel);
    expect(labels).toEqual([
      'Circuits',
      'Pattern advance',
      'Clairaut radius (mm)',
      'Pole dwell (°)',
      'Station spacing (mm)',
    ]);
    expect(
      fieldsOf('GeodesicLayer')
        .filter((field) => field.auto)
        .map((field) => field.key),
    ).toEqual(['circuits', 'patternAdvance', 'clairautRadius', 'poleDwellDegrees']);
  });

  it('starts on Auto, takes a typed number, and goes back to "auto"', () => {
    render(<Harness text={vessel} />);
    const auto = screen.getByRole('checkbox', { name: 'Circuits: Auto' }) as HTMLInputElement;
    const box = screen.getByRole('spinbutton', { name: 'Circuits' }) as HTMLInputElement;
    expect(auto.checked).toBe(true);
    expect(box.disabled).toBe(true);

    act(() => fireEvent.click(auto));
    expect(box.disabled).toBe(false);
    act(() => fireEvent.change(box, { target: { value: '12' } }));
    expect(layer().circuits).toBe(12);

    act(() => fireEvent.click(auto));
    expect(layer().circuits).toBe('auto');
    expect(box.disabled).toBe(true);
  });

  it("shows the engine's message at the field for a number out of range", () => {
    render(<Harness text={vessel} />);
    act(() => fireEvent.click(screen.getByRole('checkbox', { name: 'Pole dwell (°): Auto' })));
    const box = screen.getByRole('spinbutton', { name: 'Pole dwell (°)' });
    act(() => fireEvent.change(box, { target: { value: '-5' } }));
    expect(layer().poleDwellDegrees).toBe(-5);
    const described = (box.getAttribute('aria-describedby') ?? '').split(' ');
    const error = described
      .map((id) => document.getElementById(id))
      .find((node) => node?.dataset.testid === 'field-error');
    expect(error?.textContent).toBe(
      analyse(latest, 'tank.wind').fieldErrors.get('layers.0.poleDwellDegrees')?.join(''),
    );
    expect(error?.textContent?.length).toBeGreaterThan(0);
  });
});
