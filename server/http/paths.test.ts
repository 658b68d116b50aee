import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/workstation.ts';
import { canonicalPath, createPathPolicy } from './paths.ts';

describe('canonicalPath', () => {
  it('resolves the existing prefix like the OS and the rest lexically', async () => {
    const root = await realpath(await makeTempDir());
    await mkdir(join(root, 'a', 'b'), { recursive: true });
    await symlink(join(root, 'a', 'b'), join(root, 'link'));
    expect(await canonicalPath(join(root, 'link', 'file.wind'))).toBe(join(root, 'a', 'b', 'file.wind'));
    // `link/..` is the parent of the link's target, as the OS sees it.
    expect(await canonicalPath(`${root}/link/../x.wind`)).toBe(join(root, 'a', 'x.wind'));
    expect(await canonicalPath(`${root}/missing/../../y.wind`)).toBe(join(root, '..', 'y.wind'));
    expect(await canonicalPath(`${root}/a/./b//c.wind`)).toBe(join(root, 'a', 'b', 'c.wind'));
  });

  it('follows dangling links and gives up on loops', async () => {
    const root = await realpath(await makeTempDir());
    await symlink(join(root, 'target', 'out.gcode'), join(root, 'dangling'));
    expect(await canonicalPath(join(root, 'dangling'))).toBe(join(root, 'target', 'out.gcode'));
    await symlink(join(root, 'loop-b'), join(root, 'loop-a'));
    await symlink(join(root, 'loop-a'), join(root, 'loop-b'));
    expect(await canonicalPath(join(root, 'loop-a', 'x'))).toMatch(/loop-[ab]\/x$/);
  });
});

describe('createPathPolicy', () => {
  it('allows a root itself and what lies below it, not siblings that share a prefix', async () => {
    const root = await realpath(await makeTempDir());
    await mkdir(join(root, 'jobs'));
    await writeFile(join(root, 'one.wind'), '');
    const policy = await createPathPolicy([join(root, 'jobs'), join(root, 'one.wind'), join(root, 'jobs')]);
    expect(policy.roots).toEqual([join(root, 'jobs'), join(root, 'one.wind')]);
    expect(policy.rootsText).toBe(`${join(root, 'jobs')}, ${join(root, 'one.wind')}`);
    expect(policy.allows(join(root, 'jobs'))).toBe(true);
    expect(policy.allows(join(root, 'jobs', 'deep', 'x.wind'))).toBe(true);
    expect(policy.allows(join(root, 'jobs-old', 'x.wind'))).toBe(false);
    expect(policy.allows(join(root, 'one.wind'))).toBe(true);
    expect(policy.allows(join(root, 'one.gcode'))).toBe(false);
  });

  it('compares case-insensitively on Windows only', async () => {
    const windows = await createPathPolicy(['/Jobs'], 'win32');
    expect(windows.allows('/jobs/x.wind')).toBe(true);
    const posix = await createPathPolicy(['/Jobs'], 'linux');
    expect(posix.allows('/jobs/x.wind')).toBe(false);
  });
});
