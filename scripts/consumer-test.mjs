#!/usr/bin/env node
// Consumer test: the package as an app installs it. Builds and packs the library (`npm pack`; checks what the
// tarball holds, its source maps and its package.json), then for each fixture under test/consumers/ (a CommonJS
// Nest 11 app as `nest new` generates it, an ES module Nest 12 app): copies it to a temporary folder, installs the
// tarball and the fixture's dependencies from the registry (no links, no workspace), compiles it with its own
// TypeScript (which also type-checks an import of every subpath), starts `node dist/main.js` on a free port and
// checks the api-key page and the status route over real HTTP, then checks that require and import resolve every
// subpath to one copy of the package. Then each app installs what the README's snippets import (once, for all
// that follows). The CommonJS app runs its own Jest e2e tests (Jest loads the CommonJS build and the SDKs'
// CommonJS copies: pages, and MCP calls answered -32042) and type-checks the subpaths under `module: commonjs`
// (node10 resolution: `typesVersions`), as apps generated before Nest 11 have it. Then each app
// - serves the README's MCP controllers (examples/readme/mcp-*.ts, copied into its src/ with
//   test/consumers/mcp/mcp-apps.ts; the CommonJS app also the MCP-Nest snippet), each started as production
//   starts it (`node dist/main.js`, CONSUMER_APP naming the controller), to real SDK clients over Streamable HTTP:
//   test/consumers/mcp/mcp-driver.mjs, a plain Node script that uses the installed package's testing kit;
// - compiles the README's snippets (examples/readme) under `strict`.
// Beside them from the start, a copy of the ES module app installs the package from a git URL (a clone of the
// checkout's HEAD: committed work only; npm builds it with `prepare`) and serves the both-eras controller's MCP
// calls from that install.
// Every check prints PASS or FAIL; the closing line counts them.
//
// `npm run test:consumers`; `KEEP_CONSUMERS=1` keeps the temporary folder. Nothing is cached in the repository.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
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
    // The README's MCP controllers it serves (CONSUMER_APP), and the MCP-Nest snippet.
    mcpApps: ['both-eras', 'sessions', 'stateless', 'binding', 'mcp-nest'],
    // Node without require(esm) (as before 20.19): `require` takes the package's CommonJS build (dist/cjs).
    mcpVariants: [
      { app: 'both-eras', label: 'both-eras, node --no-experimental-require-module', nodeArgs: ['--no-experimental-require-module'] },
    ],
  },
  {
    name: 'esm-nest12',
    build: [...tsc, '-p', 'tsconfig.json'],
    extra: [],
    mcpApps: ['both-eras', 'sessions', 'stateless', 'binding'],
  },
];
/**
 * The app that installs the package from a git URL of the repository (a copy of this fixture, run beside the
 * others from the start: the git install builds the package, which takes longest), and the MCP app it serves.
 */
const GIT_FIXTURE = { ...FIXTURES[1], name: 'esm-nest12-git', from: 'esm-nest12', mcpApps: ['both-eras'] };

/** The README files each MCP app needs (copied from examples/readme into the fixture's src/readme/). */
const MCP_README_FILES = [
  'mcp-auth.ts',
  'mcp-binding.ts',
  'mcp-both-eras.controller.ts',
  'mcp-sessions.controller.ts',
  'mcp-stateless.controller.ts',
];
/** The bearer tokens the README files' verifyToken accepts (the driver sends alice's). */
const MCP_DEV_TOKENS = 'token-alice=alice,token-bob=bob';

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
  'nodemailer',
  '@types/nodemailer',
  '@types/express',
  'pg',
  '@types/pg',
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
/** Every check: `{ fixture, what, ok, detail }`, printed as it ends and counted in the closing line. */
const checks = [];
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
  const subpaths = Object.keys(pkg.exports)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
  const packed = check('package', 'npm pack (prepare builds what changed)', buildAndPack);
  await Promise.allSettled([
    ...FIXTURES.map((fixture) => packed.then((tarball) => runFixture(fixture, tarball, subpaths))),
    cloneHead().then((gitUrl) => runGitFixture(GIT_FIXTURE, gitUrl)),
  ]);
} catch {
  // recorded by check()
} finally {
  killAll();
  const failed = checks.filter((c) => !c.ok);
  if (failed.length) {
    keep = true;
    console.error(`\nFAILED (${failed.length}):`);
    for (const c of failed) console.error(`  [${c.fixture}] ${c.what}\n${indent(c.detail, 6)}`);
  }
  console.log(
    `\nconsumers: ${checks.length - failed.length} passed, ${failed.length} failed (${Math.round((Date.now() - started) / 1000)} s)`,
  );
  process.exitCode = failed.length || !checks.length ? 1 : 0;
  if (keep) console.log(`consumer test: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

/** Runs one check, prints PASS or FAIL with its time, records it; rethrows (the steps after it need it). */
async function check(fixture, what, fn) {
  const t = Date.now();
  try {
    const value = await fn();
    pass(fixture, what, Date.now() - t);
    return value;
  } catch (err) {
    fail(fixture, what, err instanceof Error ? err.message : String(err));
    throw err;
  }
}

function pass(fixture, what, ms) {
  checks.push({ fixture, what, ok: true });
  log(fixture, `PASS ${what}${ms === undefined ? '' : ` (${(ms / 1000).toFixed(1)} s)`}`);
}

function fail(fixture, what, detail) {
  checks.push({ fixture, what, ok: false, detail });
  log(fixture, `FAIL ${what}: ${detail.split('\n')[0]}`);
}

/** `npm pack` into the work folder (its `prepare` builds dist/ when the sources changed); checks what the tarball holds. */
async function buildAndPack() {
  // npm pack runs `prepare`, which builds dist/ unless it is the last build of the same inputs (after `npm ci`, it is).
  log('package', 'npm pack (prepare builds dist/ when src/ changed)');
  const { output } = await run('package', ['npm', 'pack', '--json', '--pack-destination', work], { cwd: root, timeoutMs: 4 * MINUTE });
  const [packed] = JSON.parse(output.slice(output.indexOf('[')));
  const files = new Set(packed.files.map((f) => f.path));
  const problems = [];
  for (const file of files) {
    // src/ may ship: the sources the source maps name.
    if (/^(test|e2e|examples|bench|scripts|dist-demo|dist\/examples)\//.test(file)) problems.push(`${file} should not be packed`);
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
  log('package', `${packed.filename}: ${files.size} files, ${Math.round(packed.size / 1024)} kB`);
  const tarball = join(work, packed.filename);
  // Checked apart, and the apps go on: they need the tarball, not these.
  const report = (what, found) => (found.length ? fail('package', what, found.join('\n')) : pass('package', what));
  report('the tarball holds the exports targets and templates, and no sources or tests', problems);
  report('package.json: repository, homepage, bugs; no dead "files" rules', checkPackageJson(files));
  report('source maps point only at files the tarball holds', await checkSourceMaps(tarball, files));
  return tarball;
}

async function runFixture(fixture, tarball, subpaths) {
  const { name } = fixture;
  const dir = join(work, name);
  cpSync(join(root, 'test', 'consumers', name), dir, { recursive: true });
  if (!pkg.exports['./mcp-nest']) {
    rmSync(join(dir, 'src', 'subpaths-mcp-nest.ts'));
    log(name, 'NOTE: the package does not export ./mcp-nest; its import check is left out');
  }
  await check(name, 'npm install (the tarball and the fixture dependencies)', () =>
    run(name, ['npm', 'install', '--no-audit', '--no-fund', tarball], { cwd: dir, timeoutMs: 4 * MINUTE }),
  );
  await check(name, `compile: tsc ${fixture.build.slice(1).join(' ')} (TypeScript ${readVersion(dir, 'typescript')})`, () =>
    run(name, ['node', ...fixture.build], { cwd: dir, timeoutMs: 2 * MINUTE }),
  );
  await check(name, 'node dist/main.js: the api-key page and the status route', () => checkHttp(name, dir));
  await check(name, 'require and import resolve every subpath to one copy', () => checkOneCopy(name, dir, subpaths));
  // After the app compiled without them: the SDKs its Jest e2e tests (test/mcp.e2e-spec.ts) and the MCP apps use.
  await check(name, 'npm install what the README snippets import', () => installReadmePackages(name, dir));
  for (const step of fixture.extra) {
    await check(name, step.what, async () => {
      const { output } = await run(name, ['node', ...step.cmd], { cwd: dir, timeoutMs: 2 * MINUTE });
      // Jest's own summary, prefixed, so that CI's count of this repository's tests leaves it out.
      const summary = /^Tests:.*$/m.exec(output);
      if (summary) log(name, `jest: ${summary[0].replace(/^Tests:\s+/, '')}`);
    });
  }
  await checkMcp(fixture, dir).catch(() => undefined); // its cases are recorded one by one
  await check(name, 'README snippets: tsc --strict compiles examples/readme', () => compileReadmeSnippets(name, dir));
  log(name, `done (Node ${process.version}, Nest ${readVersion(dir, '@nestjs/core')})`);
}

/** What the README snippets import beyond the app's own packages, installed once for the MCP apps and the snippets. */
async function installReadmePackages(name, dir) {
  const packages = readmePackages(dir);
  log(name, `npm install ${packages.length} packages the README snippets import`);
  await run(name, ['npm', 'install', '--no-audit', '--no-fund', '--no-save', ...packages], { cwd: dir, timeoutMs: 4 * MINUTE });
}

/** The README snippets' packages (what the MCP apps import among them), as `npm install` arguments. */
function readmePackages(dir, nest = readVersion(dir, '@nestjs/core').split('.')[0]) {
  const fromRoot = (id) => `${id}@${pkg.devDependencies[id] ?? pkg.dependencies[id] ?? `^${readVersion(root, id)}`}`;
  // Nest's own packages follow the app's Nest line.
  return [...README_SNIPPET_PACKAGES.map(fromRoot), ...['@nestjs/microservices', '@nestjs/testing'].map((id) => `${id}@^${nest}.0.0`)];
}

/**
 * The README's MCP controllers in the app: copied into src/ (with test/consumers/mcp/mcp-apps.ts, which names
 * them for main.ts), compiled with the app's build, each started with `node dist/main.js`, and driven over
 * Streamable HTTP by test/consumers/mcp/mcp-driver.mjs (real SDK clients: the installed package's testing kit).
 * Each case of the driver is one check.
 */
async function checkMcp(fixture, dir) {
  const { name } = fixture;
  const mcpSources = join(root, 'test', 'consumers', 'mcp');
  await check(name, 'MCP apps: copy the README controllers into src/ and compile', async () => {
    mkdirSync(join(dir, 'src', 'readme'), { recursive: true });
    for (const file of MCP_README_FILES) cpSync(join(root, 'examples', 'readme', file), join(dir, 'src', 'readme', file));
    cpSync(join(mcpSources, 'mcp-apps.ts'), join(dir, 'src', 'mcp-apps.ts'));
    if (fixture.mcpApps.includes('mcp-nest')) {
      cpSync(join(mcpSources, 'mcp-nest-app.ts'), join(dir, 'src', 'mcp-nest-app.ts'));
      copyMcpNestSnippet(name, join(dir, 'src', 'readme', 'mcp-nest.module.ts'));
    }
    cpSync(join(mcpSources, 'mcp-driver.mjs'), join(dir, 'mcp-driver.mjs'));
    await run(name, ['node', ...fixture.build], { cwd: dir, timeoutMs: 2 * MINUTE });
  });
  // Side by side, each on its own port: most of an app's time is its start-up.
  await Promise.all([
    ...fixture.mcpApps.map((app) => driveMcpApp(name, dir, app)),
    ...(fixture.mcpVariants ?? []).map(({ app, label, nodeArgs }) => driveMcpApp(name, dir, app, label, nodeArgs)),
  ]);
}

/**
 * The MCP-Nest snippet as the README has it. Its `baseUrl` names a public origin; until the snippet reads
 * PUBLIC_URL, the copy gets `process.env.PUBLIC_URL ?? <that origin>` so the pages it links are this app's.
 */
function copyMcpNestSnippet(name, target) {
  let source = readFileSync(join(root, 'examples', 'readme', 'mcp-nest.module.ts'), 'utf8');
  if (!source.includes('PUBLIC_URL')) {
    source = source.replace(/baseUrl: ('[^']+')/, 'baseUrl: process.env.PUBLIC_URL ?? $1');
    log(name, 'NOTE: examples/readme/mcp-nest.module.ts does not read PUBLIC_URL; the copy reads it for its baseUrl');
  }
  writeFileSync(target, source);
}

/** Starts `node [nodeArgs] dist/main.js` with CONSUMER_APP=`app` and runs the driver's cases for it; each case is a check. */
async function driveMcpApp(name, dir, app, label = app, nodeArgs = []) {
  const t = Date.now();
  let server;
  let base;
  try {
    try {
      ({ app: server, base } = await startListening(name, dir, ['node', ...nodeArgs, 'dist/main.js'], (origin) => ({
        PUBLIC_URL: origin,
        BASE_URL: origin,
        CONSUMER_APP: app,
        MCP_DEV_TOKENS,
        NO_COLOR: '1',
      })));
    } catch (err) {
      fail(name, `MCP app ${label}: node dist/main.js starts`, err.message);
      return;
    }
    const driver = start(name, ['node', 'mcp-driver.mjs', app, base], { cwd: dir });
    const timer = setTimeout(() => void stop(driver), 2 * MINUTE);
    const code = await driver.done;
    clearTimeout(timer);
    const lines = driver.output().split('\n');
    const results = lines.filter((line) => /^(PASS|FAIL) /.test(line));
    for (const line of results) {
      const [verdict, what, detail] = line.split(' | ');
      const title = `MCP ${label}: ${what}`;
      if (verdict.startsWith('PASS')) pass(name, `${title} (${detail})`);
      else fail(name, title, `${detail}\n--- app output (Nest's start-up lines left out) ---\n${appLog(server)}`);
    }
    if (code !== 0 && !results.some((line) => line.startsWith('FAIL'))) {
      fail(name, `MCP app ${label}: the driver`, `exited ${code}\n${driver.output().slice(-4000)}`);
    }
    log(name, `MCP app ${label}: ${results.length} cases in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  } finally {
    if (server) await stop(server);
  }
}

/** What an app logged, without Nest's start-up lines (modules, routes) and colours; its last 3000 characters. */
function appLog(server) {
  const lines = server
    .output()
    .replace(/\x1b\[[0-9;]*m/g, '') // eslint-disable-line no-control-regex
    .split('\n')
    .filter((line) => !/\[(InstanceLoader|RoutesResolver|RouterExplorer|NestFactory)\]/.test(line));
  return lines.join('\n').slice(-3000) || '(nothing)';
}

/**
 * The package installed from a git URL of the repository, as `npm install <git url>` does for a user: a clone of
 * the checkout's HEAD (committed work only, no dist/), so the package must build itself on install (`prepare`).
 * The app (a copy of the ES module fixture, with the packages the MCP apps import) then compiles against it and
 * serves one README controller's MCP calls from it.
 */
async function runGitFixture(fixture, gitUrl) {
  const { name } = fixture;
  const dir = join(work, name);
  cpSync(join(root, 'test', 'consumers', fixture.from), dir, { recursive: true });
  const installed = join(dir, 'node_modules', pkg.name);
  try {
    await check(name, 'npm install git+file://<clone of HEAD> (a git URL of the repository) and what the MCP apps import', async () => {
      if (!gitUrl) throw new Error('git clone of the checkout failed (see above)');
      // One install: npm builds a git dependency (prepare) on each install that fetches it.
      const nest = /\d+/.exec(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies['@nestjs/core'])[0];
      const packages = [gitUrl, ...readmePackages(dir, nest)];
      // npm installs the repository's devDependencies to run its prepare (the build): about a minute on a quiet
      // machine, past 4 on a loaded one; the limit only catches a hang.
      await run(name, ['npm', 'install', '--no-audit', '--no-fund', ...packages], { cwd: dir, timeoutMs: 10 * MINUTE });
      const main = join(installed, 'dist', 'index.js');
      if (!existsSync(main)) {
        throw new Error(
          `the git install has no ${main.replace(dir + '/', '')} ("Cannot find module .../dist/index.js" for the app): npm builds a git dependency only through a \`prepare\` script, and package.json has ${pkg.scripts?.prepare ? `prepare: ${JSON.stringify(pkg.scripts.prepare)}` : 'none'} (issue #26 part 3)`,
        );
      }
      const resolved = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
      log(name, `git install: ${pkg.name}@${resolved.version} from ${resolved._resolved ?? gitUrl}`);
    });
  } catch {
    return;
  }
  await checkMcp(fixture, dir).catch(() => undefined);
}

/** A clone of the checkout's HEAD in the work folder, as a `git+file:` URL (undefined when git fails). */
async function cloneHead() {
  const clone = join(work, 'git-clone');
  try {
    await run('package', ['git', 'clone', '--quiet', '--no-local', root, clone], { cwd: work, timeoutMs: MINUTE });
    const { output } = await run('package', ['git', 'log', '-1', '--format=%h %s'], { cwd: clone, timeoutMs: MINUTE });
    log('package', `git clone of HEAD for the git install: ${output.trim().slice(0, 100)}`);
    return `git+file://${clone}`;
  } catch (err) {
    log('package', `git clone of the checkout failed: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/**
 * The README's TypeScript blocks are the files of examples/readme (embedded with embedme, checked by
 * test/docs/readme-snippets.spec.ts): compiled here as the app's own code, under `strict`, against the installed
 * tarball's declarations.
 */
async function compileReadmeSnippets(name, dir) {
  cpSync(join(root, 'examples', 'readme'), join(dir, 'readme'), { recursive: true });
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

/** package.json as npm shows it: where the code lives and where to report bugs; every `files` rule matches something. */
function checkPackageJson(files) {
  const problems = [];
  for (const field of ['repository', 'homepage', 'bugs']) {
    if (!pkg[field]) problems.push(`package.json has no "${field}" (npm's page and \`npm bugs\` show it)`);
  }
  for (const rule of pkg.files ?? []) {
    const negated = rule.startsWith('!');
    const pattern = globRegExp(negated ? rule.slice(1) : rule);
    if (negated) {
      // A negation excludes something only when the build makes a path it matches.
      if (!listFiles(root, ['node_modules', '.git']).some((f) => pattern.test(f)))
        problems.push(`"files" rule ${rule} excludes nothing the build makes (dead rule)`);
    } else if (![...files].some((f) => pattern.test(f))) {
      problems.push(`"files" rule ${rule} matches no file in the tarball (dead rule)`);
    }
  }
  return problems;
}

/**
 * Every source map in the tarball names only files the tarball holds (or carries them inline, `sourcesContent`),
 * and every `sourceMappingURL` points at a shipped map or is inline: a debugger or `--enable-source-maps` in a
 * user's app otherwise points at nothing.
 */
async function checkSourceMaps(tarball, files) {
  const unpacked = join(work, 'unpacked');
  mkdirSync(unpacked, { recursive: true });
  await run('package', ['tar', '-xzf', tarball, '-C', unpacked], { cwd: work, timeoutMs: MINUTE });
  const read = (file) => readFileSync(join(unpacked, 'package', file), 'utf8');
  const missing = new Map(); // a missing source -> how many maps name it
  let maps = 0;
  let danglingUrls = 0;
  for (const file of files) {
    if (/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file)) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(read(file))?.[1];
      if (url && !url.startsWith('data:') && !files.has(posix.join(posix.dirname(file), url))) danglingUrls++;
    }
    if (!file.endsWith('.map')) continue;
    maps++;
    const map = JSON.parse(read(file));
    for (const [i, source] of (map.sources ?? []).entries()) {
      if (typeof map.sourcesContent?.[i] === 'string') continue;
      const target = posix.normalize(posix.join(posix.dirname(file), map.sourceRoot ?? '', source));
      if (!files.has(target)) missing.set(target, (missing.get(target) ?? 0) + 1);
    }
  }
  const problems = [];
  if (missing.size) {
    const sample = [...missing.keys()].slice(0, 3).join(', ');
    problems.push(
      `source maps name ${missing.size} files the tarball does not hold (${sample}, ...): ship them, inline them (sourcesContent) or drop the maps`,
    );
  }
  if (danglingUrls) problems.push(`${danglingUrls} files end with a sourceMappingURL to a map the tarball does not hold`);
  log('package', `source maps: ${maps} maps, ${missing.size} sources missing, ${danglingUrls} dangling sourceMappingURLs`);
  return problems;
}

/** An npm `files` pattern as a RegExp over package-relative paths (a directory rule matches what is under it). */
function globRegExp(pattern) {
  const body = pattern
    .replace(/^\.?\//, '')
    .replace(/\/$/, '')
    .split('**')
    .map((part) =>
      part
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]'),
    )
    .join('.*');
  return new RegExp(`^${body}(/.*)?$`);
}

/** Every file under `dir`, relative, skipping the named folders. */
function listFiles(dir, skip, prefix = '') {
  const out = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!skip.includes(rel)) out.push(...listFiles(dir, skip, rel));
    } else out.push(rel);
  }
  return out;
}

/**
 * Every subpath resolves under require and under import, and to the same file (the exports map's
 * `module-sync`): a module loaded both ways is one copy, so the injection tokens are the same classes, and the
 * `/store` entry's `ElicitationStore` and `MemoryElicitationStore` are the main entry's.
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
    }
    const store = await import('${pkg.name}/store');
    for (const token of ['ElicitationStore', 'MemoryElicitationStore']) {
      if (store[token] !== esm[token]) throw new Error(token + ': the /store entry and the main entry give different classes');
    }`;
  // import.meta.resolve resolves from the script's URL: run it from a file inside the fixture.
  const file = join(dir, 'one-copy.check.mjs');
  writeFileSync(file, script);
  await run(name, ['node', file], { cwd: dir, timeoutMs: MINUTE });
  log(name, `require and import resolve ${subpaths.length} subpaths to one copy`);
}

/** Starts the compiled app on a free port and checks the api-key page and the status route. */
async function checkHttp(name, dir) {
  const { app, base } = await startListening(name, dir, ['node', 'dist/main.js'], (origin) => ({ BASE_URL: origin }));
  try {
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

/**
 * Starts `argv` in `dir` on a free loopback port (`PORT`, and the env `envOf(origin)` adds) and resolves once the app
 * itself says it listens (its main.ts prints `listening on port <port>` once `listen` resolved) and answers there. A port picked free can be taken
 * before the app binds it (by another test's server picking port 0): the app then fails with EADDRINUSE while the
 * other server answers, so the app's own line is waited for, and such a start is tried again on another port.
 */
async function startListening(name, dir, argv, envOf, attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const app = start(name, argv, { cwd: dir, env: { PORT: String(port), ...envOf(base) } });
    try {
      await waitUntilListening(app, base, 30_000);
      return { app, base };
    } catch (err) {
      await stop(app);
      const taken = /EADDRINUSE/.test(app.output());
      if (!taken || attempt >= attempts) {
        throw new Error(`${err.message}\n--- app output ---\n${app.output().slice(-6000)}`, { cause: err });
      }
      log(name, `port ${port} was taken before the app bound it; trying another`);
    }
  }
}

/** Resolves once the app printed that it listens on `base`'s port (the fixtures' main.ts) and answers there. */
async function waitUntilListening(app, base, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const line = `listening on port ${new URL(base).port}`;
  while (Date.now() < deadline) {
    if (app.exited !== undefined) throw new Error(`the app exited (${app.exited}) before listening`);
    if (app.output().includes(line)) {
      try {
        await fetch(`${base}/elicit/00000000-0000-4000-8000-000000000000/status`);
        return;
      } catch {
        // listening, not answering yet
      }
    }
    await new Promise((r) => setTimeout(r, 200));
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

function indent(text = '', width = 4) {
  return text
    .split('\n')
    .map((line) => `${' '.repeat(width)}${line}`)
    .join('\n');
}
