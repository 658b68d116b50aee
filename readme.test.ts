// The README is the newcomer's map: short enough to read first, with everything else one link
// away under docs/. A link that no longer resolves (a moved file, a renamed heading) strands the
// reader, so every relative link in the README and the documents it reaches must land on a file
// inside the repository, and on a heading there when it names one.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = import.meta.dirname;
// 190: the map, the two commands and three how-tos the issues ask for in the README itself (a
// definition from scratch, resume after a stop, the shop fleet); everything else stays in docs/.
const MAX_README_LINES = 190;

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The markdown outside fenced code blocks: a `](…)` inside a shell session is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** Relative link targets of a markdown file, as written (web addresses left out). */
function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  return new Set([...prose(markdown).matchAll(/^#+ (.+)$/gm)].map((match) => slug(match[1] as string)));
}

/** What is wrong with one link of `from` (a path relative to the root), or null when it resolves. */
function brokenLink(from: string, target: string): string | null {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? join(ROOT, from) : resolve(ROOT, dirname(from), path);
  const inside = relative(ROOT, file);
  if (inside.startsWith('..')) return `${from}: ${target} leaves the repository`;
  if (!existsSync(file)) return `${from}: ${target} does not exist`;
  if (anchor && !(statSync(file).isFile() && anchors(readFileSync(file, 'utf8')).has(anchor))) {
    return `${from}: ${target} names no heading there`;
  }
  return null;
}

/** The documents under docs/ itself (the spec folder and the design are copies kept elsewhere). */
const docs = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);

describe('README.md', () => {
  const readme = read('README.md');

  it(`is at most ${MAX_README_LINES} lines`, () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('gives the two commands and the map of the code', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
    expect(readme).toMatch(/^## Map of the code$/m);
  });

  it('links every document under docs/', () => {
    const linked = new Set(links(readme).map((target) => target.split('#')[0]));
    expect(docs.filter((doc) => !linked.has(doc))).toEqual([]);
  });

  it('has only links that resolve inside the repository, its own and those of the pages it links', () => {
    const pages = new Set(['README.md']);
    for (const target of links(readme)) {
      const path = target.split('#')[0] ?? '';
      if (path.endsWith('.md') && existsSync(join(ROOT, path))) pages.add(path);
    }
    // docs/DESIGN.md is a byte copy of the shared design folder; its links are that folder's.
    pages.delete('docs/DESIGN.md');
    const broken = [...pages].flatMap((page) =>
      links(read(page))
        .map((target) => brokenLink(page, target))
        .filter((problem) => problem !== null),
    );
    expect(broken).toEqual([]);
  });
});
