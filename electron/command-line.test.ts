import { describe, expect, it } from 'vitest';
import { windFilesIn } from './command-line.ts';

describe('windFilesIn', () => {
  it('takes the .wind paths of a launch, absolute, and nothing else', () => {
    expect(
      windFilesIn(
        [
          '/opt/towpath/towpath',
          '--no-sandbox',
          'parts/Vessel.WIND',
          '/jobs/a.wind',
          'notes.txt',
          '--x=y.wind',
        ],
        '/home/op',
      ),
    ).toEqual(['/home/op/parts/Vessel.WIND', '/jobs/a.wind']);
    expect(windFilesIn(['/opt/towpath/towpath', '.'], '/home/op')).toEqual([]);
  });
});
