/**
 * Every TypeScript block of the README, the guides in docs/ and CONTRIBUTING.md is a real file under examples/readme,
 * embedded with embedme: the block
 * opens with a comment naming the file (and, for part of one, its lines), and `embedme --verify` finds the
 * README's copy equal to the file. The files themselves are compiled under `strict` in a CommonJS and an ES
 * module app against the packed package (scripts/consumer-test.mjs), and the key ones run in
 * e2e/docs/readme-snippets.e2e-spec.ts. After changing a file: `npx embedme --source-root . README.md docs/*.md CONTRIBUTING.md`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { documentationFiles } from './readme-support.js';

/** The documentation, whose TypeScript blocks must all be embedded. */
const DOCUMENTS = documentationFiles();
const EMBED = /^\/\/ (examples\/readme\/[\w.-]+\.ts)(#L\d+-L\d+)?$/;

/** The fenced TypeScript blocks of a Markdown text: their line number and first line. */
function typescriptBlocks(markdown: string): Array<{ line: number; first: string }> {
  const lines = markdown.split('\n');
  const blocks: Array<{ line: number; first: string }> = [];
  let open: string | undefined;
  for (const [index, line] of lines.entries()) {
    const fence = /^(\s*)(```+)(\S*)/.exec(line);
    if (!fence) continue;
    if (open === undefined) {
      open = fence[3];
      if (/^(ts|typescript|tsx)$/i.test(fence[3])) blocks.push({ line: index + 1, first: (lines[index + 1] ?? '').trim() });
    } else if (fence[3] === '') {
      open = undefined;
    }
  }
  return blocks;
}

describe.each(DOCUMENTS)('%s TypeScript blocks', (document) => {
  const blocks = typescriptBlocks(readFileSync(document, 'utf8'));

  it('embeds every one from an existing file under examples/readme', () => {
    const problems = blocks.flatMap(({ line, first }) => {
      const file = EMBED.exec(first)?.[1];
      if (!file) return [`line ${line}: the block does not start with "// examples/readme/<file>.ts", it starts "${first}"`];
      return existsSync(file) ? [] : [`line ${line}: ${file} does not exist`];
    });
    expect(problems).toEqual([]);
  });

  it('holds exactly what the files hold (embedme --verify; to update: npx embedme --source-root . <page>)', () => {
    const verify = () =>
      execFileSync('node', ['node_modules/embedme/dist/embedme.js', '--verify', '--source-root', '.', document], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    expect(verify).not.toThrow();
  });
});

it('the documentation has TypeScript blocks to check (the README at least the quick start and a tool)', () => {
  const count = (document: string) => typescriptBlocks(readFileSync(document, 'utf8')).length;
  expect(count('README.md')).toBeGreaterThanOrEqual(2);
  expect(DOCUMENTS.reduce((sum, document) => sum + count(document), 0)).toBeGreaterThan(10);
});
