/**
 * The README is read on npm and in `node_modules`, where a relative link or image points at nothing unless the
 * package ships it: every link and image of the README (Markdown, reference definitions, and `src`/`href` of HTML,
 * outside code blocks) is an absolute http(s) URL, an anchor of the page, or a file the package ships (package.json
 * `files`) that exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

const README = 'README.md';

/** The README's prose, fenced code blocks and inline code removed (their text is code, not links). */
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

/** Whether the package ships `path` (package.json `files`: a listed file or folder, minus `!` exclusions). */
function shipped(path: string): boolean {
  const files = (JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] }).files;
  const clean = path.replace(/^\.\//, '').replace(/[#?].*$/, '');
  const under = (rule: string) => clean === rule || clean.startsWith(`${rule.replace(/\/$/, '')}/`);
  return files.some((rule) => !rule.startsWith('!') && under(rule)) && !files.some((rule) => rule.startsWith('!') && under(rule.slice(1)));
}

describe('README links and images', () => {
  const found = targets(readFileSync(README, 'utf8'));

  it('finds the links and images (the page table, MCP-Nest, embedme)', () => {
    expect(found.filter(({ target }) => target.includes('/docs/screenshots/')).length).toBeGreaterThan(20);
    expect(found.some(({ target }) => target === 'https://github.com/rekog-labs/MCP-Nest')).toBe(true);
  });

  it('are absolute http(s) URLs, anchors of the page, or files the package ships', () => {
    const problems = found.flatMap(({ target }) => {
      if (/^https?:\/\//.test(target) || target.startsWith('#')) return [];
      if (shipped(target) && existsSync(target.replace(/[#?].*$/, ''))) return [];
      return [`${target}: not absolute, and not a file the package ships (package.json "files")`];
    });
    expect(problems).toEqual([]);
  });

  it('the checker refuses a relative link to a file that is not shipped', () => {
    expect(shipped('docs/screenshots/done-light.png')).toBe(false);
    expect(shipped('examples/readme/quick-start.ts')).toBe(false);
    expect(shipped('templates/layout.hbs')).toBe(true);
    expect(targets('![x](docs/a.png) [y](https://e.example/b) <img src="c.png">').map(({ target }) => target)).toEqual([
      'docs/a.png',
      'https://e.example/b',
      'c.png',
    ]);
  });
});
