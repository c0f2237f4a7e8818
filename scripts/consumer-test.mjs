#!/usr/bin/env node
// Consumer test: the package as an app installs it. Builds and packs the library (`npm pack`), then for each
// fixture under test/consumers/ (a CommonJS Nest 11 app as `nest new` generates it, an ES module Nest 12 app):
// copies it to a temporary folder, installs the tarball and the fixture's dependencies from the registry (no
// links, no workspace), compiles it with its own TypeScript (which also type-checks an import of every
// subpath), starts `node dist/main.js` on a free port and checks the api-key page and the status route over
// real HTTP, then checks that require and import resolve every subpath to one copy of the package. The
// CommonJS app also runs its own Jest e2e tests (Jest loads the CommonJS build) and type-checks the subpaths
// under `module: commonjs` (node10 resolution: `typesVersions`), as apps generated before Nest 11 have it.
// Last, each app installs what the README's snippets import and compiles them (examples/readme) under `strict`.
//
// `npm run test:consumers`; `KEEP_CONSUMERS=1` keeps the temporary folder. Nothing is cached in the repository.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tsc = ['node_modules/typescript/bin/tsc'];
const MINUTE = 60_000;

/** What each fixture compiles with, and what else it runs. */
const FIXTURES = [
  {
    name: 'cjs-nest11',
    build: [...tsc, '-p', 'tsconfig.build.json'],
    extra: [
      {
        what: 'type-check under module commonjs (node10 resolution)',
        cmd: [...tsc, '-p', 'tsconfig.build.json', '--noEmit', '--incremental', 'false'].concat([
          '--module',
          'commonjs',
          '--moduleResolution',
          'node10',
          '--resolvePackageJsonExports',
          'false',
        ]),
      },
      { what: 'its Jest e2e tests (test/jest-e2e.json)', cmd: ['node_modules/jest/bin/jest.js', '--config', './test/jest-e2e.json'] },
    ],
  },
  { name: 'esm-nest12', build: [...tsc, '-p', 'tsconfig.json'], extra: [] },
];

/** What the README snippets import beyond the app's own packages (versions from this package.json). */
const README_SNIPPET_PACKAGES = [
  '@jest/globals',
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/node',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/server',
  '@nestjs/config',
  '@nestjs/terminus',
  '@opentelemetry/api',
  '@opentelemetry/exporter-prometheus',
  '@opentelemetry/sdk-metrics',
  '@rekog/mcp-nest',
  'class-validator',
  'ioredis',
  'zod',
];
/** Each flag `strict` turns on, set one by one: an app's tsconfig (as `nest new` writes it) turns some off. */
const STRICT_FLAGS = [
  'strict',
  'noImplicitAny',
  'strictNullChecks',
  'strictFunctionTypes',
  'strictBindCallApply',
  'strictPropertyInitialization',
  'noImplicitThis',
  'useUnknownInCatchVariables',
  'alwaysStrict',
];

const children = new Set();
const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'consumer-test-'));
let keep = process.env.KEEP_CONSUMERS === '1';
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}
process.on('exit', killAll);

try {
  const tarball = await buildAndPack();
  const subpaths = Object.keys(pkg.exports)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
  const results = await Promise.allSettled(FIXTURES.map((fixture) => runFixture(fixture, tarball, subpaths)));
  const failed = results.filter((r) => r.status === 'rejected');
  for (const [i, r] of results.entries()) {
    if (r.status === 'rejected')
      console.error(`\n[${FIXTURES[i].name}] FAILED: ${r.reason instanceof Error ? r.reason.message : r.reason}`);
  }
  if (failed.length) keep = true;
  console.log(
    `\nconsumers: ${results.length - failed.length} passed, ${failed.length} failed (${Math.round((Date.now() - started) / 1000)} s)`,
  );
  process.exitCode = failed.length ? 1 : 0;
} catch (err) {
  keep = true;
  console.error(`consumer test: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  killAll();
  if (keep) console.log(`consumer test: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

/** `npm run build`, then `npm pack` into the work folder; checks what the tarball holds. */
async function buildAndPack() {
  log('package', 'npm run build');
  await run('package', ['npm', 'run', 'build'], { cwd: root, timeoutMs: 3 * MINUTE });
  const { output } = await run('package', ['npm', 'pack', '--json', '--pack-destination', work], { cwd: root, timeoutMs: MINUTE });
  const [packed] = JSON.parse(output.slice(output.indexOf('[')));
  const files = new Set(packed.files.map((f) => f.path));
  const problems = [];
  for (const file of files) {
    if (/^(src|test|e2e|examples|bench|scripts|dist-demo|dist\/examples)\//.test(file)) problems.push(`${file} should not be packed`);
  }
  for (const target of exportTargets(pkg.exports)) {
    if (!files.has(target.replace(/^\.\//, ''))) problems.push(`exports target ${target} is not in the tarball`);
  }
  for (const name of ['layout', 'api-key', 'confirm', 'form', 'done', 'error']) {
    if (!files.has(`templates/${name}.hbs`)) problems.push(`templates/${name}.hbs is not in the tarball`);
  }
  for (const [key, entry] of Object.entries(pkg.exports)) {
    if (key !== './package.json' && !['module-sync', 'import', 'require'].every((c) => c in entry)) {
      problems.push(`exports["${key}"] needs the module-sync, import and require conditions`);
    }
    if (key.startsWith('./') && key !== './package.json' && !pkg.typesVersions?.['*']?.[key.slice(2)]) {
      problems.push(`typesVersions has no "${key.slice(2)}" (apps on node10 resolution cannot type-check it)`);
    }
  }
  if (problems.length) throw new Error(`npm pack:\n  ${problems.join('\n  ')}`);
  log('package', `${packed.filename}: ${files.size} files, ${Math.round(packed.size / 1024)} kB`);
  return join(work, packed.filename);
}

async function runFixture(fixture, tarball, subpaths) {
  const { name } = fixture;
  const dir = join(work, name);
  cpSync(join(root, 'test', 'consumers', name), dir, { recursive: true });
  if (!pkg.exports['./mcp-nest']) {
    rmSync(join(dir, 'src', 'subpaths-mcp-nest.ts'));
    log(name, 'NOTE: the package does not export ./mcp-nest; its import check is left out');
  }
  log(name, 'npm install (the tarball and the fixture dependencies)');
  await run(name, ['npm', 'install', '--no-audit', '--no-fund', tarball], { cwd: dir, timeoutMs: 4 * MINUTE });
  log(name, `compile: tsc ${fixture.build.slice(1).join(' ')} (TypeScript ${readVersion(dir, 'typescript')})`);
  await run(name, ['node', ...fixture.build], { cwd: dir, timeoutMs: 2 * MINUTE });
  await checkHttp(name, dir);
  await checkOneCopy(name, dir, subpaths);
  for (const step of fixture.extra) {
    log(name, step.what);
    const { output } = await run(name, ['node', ...step.cmd], { cwd: dir, timeoutMs: 2 * MINUTE });
    // Jest's own summary, prefixed, so that CI's count of this repository's tests leaves it out.
    const summary = /^Tests:.*$/m.exec(output);
    if (summary) log(name, `jest: ${summary[0].replace(/^Tests:\s+/, '')}`);
  }
  await checkReadmeSnippets(name, dir);
  log(name, `passed (Node ${process.version}, Nest ${readVersion(dir, '@nestjs/core')})`);
}

/**
 * The README's TypeScript blocks are the files of examples/readme (embedded with embedme, checked by
 * test/docs/readme-snippets.spec.ts): compiled here as the app's own code, under `strict`, against the installed
 * tarball's declarations. Runs last, so the checks above see the app without the optional packages.
 */
async function checkReadmeSnippets(name, dir) {
  cpSync(join(root, 'examples', 'readme'), join(dir, 'readme'), { recursive: true });
  const nest = readVersion(dir, '@nestjs/core').split('.')[0];
  const fromRoot = (id) => `${id}@${pkg.devDependencies[id] ?? pkg.dependencies[id] ?? `^${readVersion(root, id)}`}`;
  const packages = [
    ...README_SNIPPET_PACKAGES.map(fromRoot),
    // Nest's own packages follow the app's Nest line.
    ...['@nestjs/microservices', '@nestjs/testing'].map((id) => `${id}@^${nest}.0.0`),
  ];
  log(name, `README snippets: npm install ${packages.length} packages they import`);
  await run(name, ['npm', 'install', '--no-audit', '--no-fund', '--no-save', ...packages], { cwd: dir, timeoutMs: 4 * MINUTE });
  const strict = Object.fromEntries(STRICT_FLAGS.map((flag) => [flag, true]));
  const tsconfig = {
    extends: './tsconfig.json',
    compilerOptions: { ...strict, noEmit: true, incremental: false, rootDir: '.', types: ['node'] },
    include: ['readme/**/*.ts'],
  };
  writeFileSync(join(dir, 'tsconfig.readme.json'), JSON.stringify(tsconfig, null, 2));
  await run(name, ['node', ...tsc, '-p', 'tsconfig.readme.json'], { cwd: dir, timeoutMs: 2 * MINUTE });
  log(name, `README snippets: tsc --strict compiles the ${readdirSync(join(dir, 'readme')).length} files of examples/readme`);
}

/**
 * Every subpath resolves under require and under import, and to the same file (the exports map's
 * `module-sync`): a module loaded both ways is one copy, so the injection tokens are the same classes.
 */
async function checkOneCopy(name, dir, subpaths) {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(join(dir, 'package.json'))});
    for (const id of ${JSON.stringify(subpaths)}) {
      const required = require.resolve(id);
      const imported = new URL(import.meta.resolve(id)).pathname;
      if (required !== imported) throw new Error(id + ': require resolves ' + required + ', import ' + imported);
    }
    const cjs = require('${pkg.name}');
    const esm = await import('${pkg.name}');
    for (const token of ['ElicitationModule', 'ElicitationService', 'ElicitationStore']) {
      if (typeof cjs[token] !== 'function' || cjs[token] !== esm[token]) throw new Error(token + ': require and import give different classes');
    }`;
  // import.meta.resolve resolves from the script's URL: run it from a file inside the fixture.
  const file = join(dir, 'one-copy.check.mjs');
  writeFileSync(file, script);
  await run(name, ['node', file], { cwd: dir, timeoutMs: MINUTE });
  log(name, `require and import resolve ${subpaths.length} subpaths to one copy`);
}

/** Starts the compiled app on a free port and checks the api-key page and the status route. */
async function checkHttp(name, dir) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = start(name, ['node', 'dist/main.js'], { cwd: dir, env: { PORT: String(port), BASE_URL: base } });
  try {
    await waitUntilListening(app, base, 30_000);
    const created = await expectResponse(fetch(`${base}/consent/api-key`, { method: 'POST' }), 201, 'application/json');
    const { elicitationId, url } = JSON.parse(created);
    if (url !== `${base}/elicit/${elicitationId}/api-key`) throw new Error(`unexpected elicitation url ${url}`);
    const page = await expectResponse(fetch(url), 200, 'text/html');
    if (!page.includes('<form')) throw new Error('the api-key page has no form');
    const status = JSON.parse(await expectResponse(fetch(`${base}/elicit/${elicitationId}/status`), 200, 'application/json'));
    if (status.status !== 'pending' || status.elicitationId !== elicitationId)
      throw new Error(`status route answered ${JSON.stringify(status)}`);
    log(name, `node dist/main.js: POST /consent/api-key 201, GET ${new URL(url).pathname} 200 html, GET status 200 pending`);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- app output ---\n${app.output()}`, { cause: err });
  } finally {
    await stop(app);
  }
}

async function expectResponse(pending, status, type) {
  const res = await pending;
  const body = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  if (res.status !== status || !contentType.startsWith(type)) {
    throw new Error(`${res.url}: expected ${status} ${type}, got ${res.status} ${contentType}: ${body.slice(0, 300)}`);
  }
  return body;
}

async function waitUntilListening(app, base, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (app.exited) throw new Error(`the app exited (${app.exited}) before listening`);
    try {
      await fetch(`${base}/elicit/00000000-0000-4000-8000-000000000000/status`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`the app did not listen within ${timeoutMs / 1000} s`);
}

/** Runs a command to completion (its own process group, killed at the timeout); rejects with its output. */
async function run(name, [cmd, ...args], { cwd, timeoutMs, env }) {
  const child = start(name, [cmd, ...args], { cwd, env });
  const timer = setTimeout(() => {
    child.timedOut = true;
    void stop(child);
  }, timeoutMs);
  const code = await child.done;
  clearTimeout(timer);
  if (code !== 0) {
    const why = child.timedOut ? `timed out after ${timeoutMs / 1000} s` : `exited ${code}`;
    throw new Error(`${[cmd, ...args].join(' ')} ${why}\n${indent(child.output().slice(-6000))}`);
  }
  return { output: child.output() };
}

function start(name, [cmd, ...args], { cwd, env = {} }) {
  const proc = spawn(cmd, args, { cwd, env: { ...cleanEnv(), ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks = [];
  proc.stdout.on('data', (c) => chunks.push(c));
  proc.stderr.on('data', (c) => chunks.push(c));
  const child = { name, proc, exited: undefined, timedOut: false, output: () => Buffer.concat(chunks).toString('utf8') };
  child.done = new Promise((resolve) => {
    proc.on('error', (err) => {
      chunks.push(Buffer.from(String(err)));
      child.exited = 'error';
      children.delete(child);
      resolve(-1);
    });
    proc.on('close', (code, signal) => {
      child.exited = signal ?? code;
      children.delete(child);
      resolve(code ?? -1);
    });
  });
  children.add(child);
  return child;
}

/** SIGTERM to the child's process group, SIGKILL after 5 s. */
async function stop(child) {
  if (child.exited !== undefined) return;
  signalGroup(child, 'SIGTERM');
  const killed = setTimeout(() => signalGroup(child, 'SIGKILL'), 5000);
  await child.done;
  clearTimeout(killed);
}

function killAll() {
  for (const child of children) signalGroup(child, 'SIGKILL');
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.proc.pid, signal);
  } catch {
    // already gone
  }
}

/** The environment without what `npm run` adds for this repository (a child npm must see only its fixture). */
function cleanEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(npm_package_|npm_lifecycle_|npm_config_local_prefix$|INIT_CWD$)/i.test(k)),
  );
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function exportTargets(value) {
  if (typeof value === 'string') return [value];
  return Object.values(value).flatMap(exportTargets);
}

function readVersion(dir, name) {
  return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
}

function log(name, text) {
  console.log(`[${name}] ${text}`);
}

function indent(text) {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
