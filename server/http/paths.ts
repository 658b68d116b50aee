import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { HttpError } from './http-error.ts';

/**
 * The canonical form of a path (spec/winding.md §7.2): symlinks and `.`/`..` resolved by the OS
 * (realpath) for the longest existing prefix, the remaining components appended after lexical
 * normalisation. Resolving the existing prefix first matters: `link/..` means the parent of the
 * link's target, not the folder holding the link. A dangling symlink is followed too: writing
 * through it would create its target, so its target is what must lie inside the roots.
 */
export async function canonicalPath(path: string, hops = 0): Promise<string> {
  const absolute = isAbsolute(path) ? path : resolve(path);
  const parts = absolute.split(sep);
  for (let length = parts.length; length > 0; length--) {
    const prefix = parts.slice(0, length).join(sep) || sep;
    try {
      return resolve(await realpath(prefix), ...parts.slice(length));
    } catch {
      // Not there (or not a folder): a dangling link is followed, anything else tries a shorter prefix.
      const target = hops < MAX_LINK_HOPS ? await danglingLinkTarget(prefix) : undefined;
      if (target !== undefined) {
        return canonicalPath(resolve(dirname(prefix), target, ...parts.slice(length)), hops + 1);
      }
    }
  }
  return resolve(absolute);
}

/** As many links as Linux follows before ELOOP. */
const MAX_LINK_HOPS = 40;

async function danglingLinkTarget(path: string): Promise<string | undefined> {
  try {
    return (await lstat(path)).isSymbolicLink() ? await readlink(path) : undefined;
  } catch {
    return undefined;
  }
}

export interface PathPolicy {
  /** Canonical allowed roots. */
  roots: string[];
  /** The roots as messages show them: `, `-joined. */
  rootsText: string;
  /** True when the canonical path is one of the roots or lies below one. */
  allows(canonical: string): boolean;
}

export async function createPathPolicy(rawRoots: string[], platform = process.platform): Promise<PathPolicy> {
  const roots = [...new Set(await Promise.all(rawRoots.map(canonicalPath)))];
  const fold = platform === 'win32' ? (p: string) => p.toLowerCase() : (p: string) => p;
  const folded = roots.map(fold);
  return {
    roots,
    rootsText: roots.join(', '),
    allows(canonical) {
      const path = fold(canonical);
      return folded.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
    },
  };
}

/**
 * Longest request path accepted, in UTF-8 bytes (Linux's PATH_MAX). Checked before the path is
 * canonicalised: resolving tens of thousands of components takes seconds.
 */
export const MAX_PATH_BYTES = 4096;

/**
 * Rows 1–4 of §7.2 for a request path: checked before any file is opened. Returns the canonical
 * path to open; messages quote the path exactly as sent.
 */
export async function checkRequestPath(path: string, policy: PathPolicy): Promise<string> {
  if (path.trim() === '') throw new HttpError(400, 'Path must not be empty');
  if (path.includes('\0')) throw new HttpError(400, 'Path must not contain NUL characters');
  if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES) {
    throw new HttpError(400, `Path must not be longer than ${MAX_PATH_BYTES} bytes`);
  }
  if (!isAbsolute(path)) throw new HttpError(400, `Path must be absolute: '${path}'`);
  const canonical = await canonicalPath(path);
  insideRoots(path, policy)(canonical);
  return canonical;
}

/**
 * A check of where a file requested as `path` really is (its canonical path, or the real location
 * of the opened file), refusing with row 4's 403 when that lies outside the roots.
 */
export function insideRoots(path: string, policy: PathPolicy): (real: string) => void {
  return (real) => {
    if (policy.allows(real)) return;
    throw new HttpError(
      403,
      `Path '${path}' is outside the allowed roots. Configure WINDING_ALLOWED_ROOTS to permit additional roots. Current roots: ${policy.rootsText}`,
    );
  };
}
