/**
 * Links and images of the documentation, and the README's size.
 * - README.md is read on npm and in `node_modules`, where a relative link or image points at nothing unless the
 *   package ships it: each of its links and images is an absolute http(s) URL, an anchor of the page, or a file the
 *   package ships (package.json `files`) that exists.
 * - The pages of docs/ and CONTRIBUTING.md are read in the repository: each relative link resolves to a file of it.
 * - On every page, an anchor (`#...`, alone or after a Markdown file) names a heading of its target page.
 * - The README stays at most README_MAX_LINES lines: growth past it is a decision, made by changing the number.
 * Links are read from the prose: Markdown links and images, reference definitions, and `src`/`href` of HTML,
 * outside code blocks and inline code.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const README = 'README.md';
/** The README's size budget (#30: one screen's worth of decisions, the rest in docs/). */
const README_MAX_LINES = 400;

/** Every page checked: the README, CONTRIBUTING.md and each Markdown page of docs/ (ADRs included). */
function pages(): string[] {
  const inDocs = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return inDocs(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return [README, 'CONTRIBUTING.md', ...inDocs('docs').sort()];
}

/** The prose of a page, fenced code blocks and inline code removed (their text is code, not links). */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push(line.replace(/`[^`]*`/g, '``'));
  }
  return lines;
}

/** Every link target of the prose, with its line. */
function targets(markdown: string): Array<{ line: number; target: string }> {
  const found: Array<{ line: number; target: string }> = [];
  for (const [index, line] of prose(markdown).entries()) {
    const patterns = [
      /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
      /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g,
      /\b(?:src|href)\s*=\s*"([^"]+)"/g,
    ];
    for (const pattern of patterns) for (const match of line.matchAll(pattern)) found.push({ line: index + 1, target: match[1] });
  }
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (but `-` and `_`), spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown page: one per heading outside code blocks (a repeated one gets `-1`, `-2`, ...). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count ? `${base}-${count}` : base);
  }
  return result;
}

/** Whether the package ships `path` (package.json `files`: a listed file or folder or glob, minus `!` exclusions). */
function shipped(path: string): boolean {
  const files = (JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] }).files;
  const clean = path.replace(/^\.\//, '').replace(/[#?].*$/, '');
  const under = (rule: string) => {
    if (rule.includes('*')) return new RegExp(`^${rule.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`).test(clean);
    return clean === rule || clean.startsWith(`${rule.replace(/\/$/, '')}/`);
  };
  return files.some((rule) => !rule.startsWith('!') && under(rule)) && !files.some((rule) => rule.startsWith('!') && under(rule.slice(1)));
}

/** What is wrong with one link of `page` (none: an empty list). */
function linkProblems(page: string, target: string): string[] {
  if (/^(https?:|mailto:)/.test(target)) return [];
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = pathPart === '' ? page : normalize(join(dirname(page), pathPart));
  if (page === README && pathPart !== '' && !shipped(file)) {
    return [`${page}: ${target}: not absolute, and not a file the package ships (package.json "files")`];
  }
  if (!existsSync(file)) return [`${page}: ${target}: no such file (${file})`];
  if (anchor !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
    return [`${page}: ${target}: ${file} has no heading with the anchor #${anchor}`];
  }
  return [];
}

describe('Links and images of README.md and docs/', () => {
  it('finds the links and images (the guides map, the page table, MCP-Nest)', () => {
    const readme = targets(readFileSync(README, 'utf8')).map(({ target }) => target);
    expect(readme.filter((target) => target.startsWith('docs/')).length).toBeGreaterThan(10);
    const pagesTable = targets(readFileSync('docs/pages.md', 'utf8')).map(({ target }) => target);
    expect(pagesTable.filter((target) => target.includes('/docs/screenshots/')).length).toBeGreaterThan(20);
    const mcpNest = targets(readFileSync('docs/mcp-nest.md', 'utf8')).map(({ target }) => target);
    expect(mcpNest).toContain('https://github.com/rekog-labs/MCP-Nest');
  });

  it.each(pages())('%s: every link and image resolves', (page) => {
    const problems = targets(readFileSync(page, 'utf8')).flatMap(({ target }) => linkProblems(page, target));
    expect(problems).toEqual([]);
  });

  it(`README.md is at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(README, 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('the checker refuses what would not resolve', () => {
    expect(shipped('docs/screenshots/done-light.png')).toBe(false);
    expect(shipped('examples/readme/quick-start.ts')).toBe(false);
    expect(shipped('templates/layout.hbs')).toBe(true);
    expect(shipped('docs/pages.md')).toBe(true);
    expect(targets('![x](docs/a.png) [y](https://e.example/b) <img src="c.png">').map(({ target }) => target)).toEqual([
      'docs/a.png',
      'https://e.example/b',
      'c.png',
    ]);
    expect(linkProblems(README, 'docs/screenshots/done-light.png')).toHaveLength(1);
    expect(linkProblems('docs/pages.md', 'no-such-page.md')).toHaveLength(1);
    expect(linkProblems('docs/pages.md', 'options.md#no-such-heading')).toHaveLength(1);
    expect(linkProblems('docs/pages.md', 'options.md#options')).toEqual([]);
    expect(slug('Connecting accounts (OAuth)')).toBe('connecting-accounts-oauth');
    expect(slug('With @rekog/mcp-nest')).toBe('with-rekogmcp-nest');
  });
});
