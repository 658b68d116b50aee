import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../server/testing/workstation.ts';
import { RECENT_FILES, RECENT_LIMIT, RecentFiles } from './recent-files.ts';

describe('recent files', () => {
  it('keeps the newest first, without repeats, at most ten, across restarts', async () => {
    const dir = await makeTempDir();
    const recent = new RecentFiles(dir);
    expect(recent.list()).toEqual([]);
    recent.add('wind', '/jobs/a.wind');
    recent.add('gcode', '/jobs/a.gcode');
    recent.add('wind', '/jobs/a.wind');
    expect(recent.list()).toEqual([
      { kind: 'wind', path: '/jobs/a.wind' },
      { kind: 'gcode', path: '/jobs/a.gcode' },
    ]);
    for (let i = 0; i < 15; i++) recent.add('gcode', `/jobs/${i}.gcode`);
    expect(recent.list()).toHaveLength(RECENT_LIMIT);
    expect(recent.list()[0]).toEqual({ kind: 'gcode', path: '/jobs/14.gcode' });

    const again = new RecentFiles(dir);
    expect(again.list()).toEqual(recent.list());
    expect(statSync(join(dir, RECENT_FILES)).mode & 0o777).toBe(0o600);
    again.remove('/jobs/14.gcode');
    expect(new RecentFiles(dir).list()[0]?.path).toBe('/jobs/13.gcode');
    again.clear();
    expect(JSON.parse(readFileSync(join(dir, RECENT_FILES), 'utf8'))).toEqual([]);
  });

  it('reads a damaged or foreign file as an empty list and drops entries it cannot use', async () => {
    const dir = await makeTempDir();
    writeFileSync(join(dir, RECENT_FILES), '{not json');
    expect(new RecentFiles(dir).list()).toEqual([]);
    writeFileSync(
      join(dir, RECENT_FILES),
      JSON.stringify([
        { kind: 'wind', path: 'relative.wind' },
        { kind: 'exe', path: '/bin/sh' },
        { kind: 'gcode', path: '/jobs/ok.gcode' },
        'nonsense',
      ]),
    );
    expect(new RecentFiles(dir).list()).toEqual([{ kind: 'gcode', path: '/jobs/ok.gcode' }]);
  });
});
