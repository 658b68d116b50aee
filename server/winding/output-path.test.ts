import { describe, expect, it } from 'vitest';
import { defaultOutputPath } from './output-path.ts';

describe('defaultOutputPath', () => {
  it.each([
    ['/jobs/vessel.wind', '/jobs/vessel.gcode'],
    ['/jobs/vessel.v2.wind', '/jobs/vessel.v2.gcode'],
    ['/jobs/vessel', '/jobs/vessel.gcode'],
    ['/jobs/.wind', '/jobs/.wind.gcode'],
    ['/jobs/part.', '/jobs/part..gcode'],
    ['/jobs.d/vessel', '/jobs.d/vessel.gcode'],
    ['/jobs/vessel.gcode', '/jobs/vessel.gcode'],
  ])('%s → %s', (input, output) => {
    expect(defaultOutputPath(input)).toBe(output);
  });
});
