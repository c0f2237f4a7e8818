// Node 20 shim for the conformance CLI, which does `import { globSync } from 'fs'` (fs.globSync is Node 22+).
// Use: node --import ./scripts/conformance/node20-globsync.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js ...
//
// Node fixes the named exports of a built-in's ESM facade from the CommonJS object when the facade is
// first built, and `module.syncBuiltinESMExports()` never adds names, so patching `fs.globSync` cannot
// satisfy that import. Instead this file registers itself as a module-customization hook
// (`module.register`): the `resolve` hook sends every ESM import of `fs`/`node:fs` to a small
// virtual module that re-exports all of `node:fs` plus `globSync` below. On a Node that has
// `fs.globSync` it registers nothing.
//
// The same file serves three roles, told apart by its URL query: no query = the `--import` preload,
// `?role=hooks` = the hooks module (loader thread), `?role=impl` = where the virtual module takes
// `globSync` from (the loader leaves this file's own `fs` imports alone).
import fs from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';

const self = new URL(import.meta.url);
const role = self.searchParams.get('role');
const fileUrl = `${self.origin === 'null' ? 'file://' : self.origin}${self.pathname}`;
const SHIM_URL = `${fileUrl}?role=fs-shim`;

if (!role && typeof fs.globSync !== 'function') {
  register(`${fileUrl}?role=hooks`);
}

/** resolve hook: `fs` / `node:fs` → the virtual module, except for imports made by this file or the shim. */
export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && !(context.parentURL ?? '').startsWith(fileUrl)) {
    return { url: SHIM_URL, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

/** load hook: the source of the virtual module. */
export async function load(url, context, nextLoad) {
  if (url === SHIM_URL) {
    const source = [
      "import fs from 'node:fs';",
      "export * from 'node:fs';",
      'export default fs;',
      `export { globSync } from ${JSON.stringify(`${fileUrl}?role=impl`)};`,
    ].join('\n');
    return { format: 'module', source, shortCircuit: true };
  }
  return nextLoad(url, context);
}

const MAGIC = /[*?[{]/;

/** Glob pattern → RegExp over '/'-separated relative paths: `**`, `*`, `?`, `[...]`, `{a,b}`. */
function toRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      const slashAfter = pattern[i + 2] === '/';
      const atSegmentStart = i === 0 || pattern[i - 1] === '/';
      if (atSegmentStart && slashAfter) {
        re += '(?:[^/]+/)*'; // `**/`: zero or more directories
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        re += `[${pattern
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = pattern.indexOf('}', i + 1);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${pattern
          .slice(i + 1, end)
          .split(',')
          .map((alt) => toRegExp(alt).source.slice(1, -1))
          .join('|')})`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Every entry under `dir`, as '/'-separated paths relative to it (symlinked directories not followed). */
function walk(dir, prefix, out) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    out.push(rel);
    if (entry.isDirectory()) walk(path.join(dir, entry.name), rel, out);
  }
}

/** A small `fs.globSync(pattern | patterns, { cwd, exclude })` returning matching paths (files and directories). */
export function globSync(patterns, options = {}) {
  const cwd = options.cwd ? String(options.cwd instanceof URL ? options.cwd.pathname : options.cwd) : process.cwd();
  const exclude =
    typeof options.exclude === 'function' ? options.exclude : Array.isArray(options.exclude) ? options.exclude.map(toRegExp) : [];
  const results = new Set();
  for (const pattern of Array.isArray(patterns) ? patterns : [patterns]) {
    const posix = pattern.split(path.sep).join('/');
    // Walk only below the pattern's literal leading directories.
    const segments = posix.split('/');
    const firstMagic = segments.findIndex((s) => MAGIC.test(s));
    if (firstMagic < 0) {
      if (fs.existsSync(path.resolve(cwd, posix))) results.add(path.normalize(posix));
      continue;
    }
    const base = segments.slice(0, firstMagic).join('/');
    const root = path.resolve(cwd, base || '.');
    const matcher = toRegExp(segments.slice(firstMagic).join('/'));
    const found = [];
    walk(root, '', found);
    for (const rel of found) {
      if (!matcher.test(rel)) continue;
      const full = base ? `${base}/${rel}` : rel;
      if (typeof exclude === 'function' ? exclude(full) : exclude.some((re) => re.test(full))) continue;
      results.add(path.normalize(full));
    }
  }
  return [...results];
}
