#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against the
// demo apps, on both protocol eras their /mcp route serves: for each target, starts its compiled main.js
// with MCP_CONFORMANCE=1 on a free loopback port, runs the CLI once per scenario, one after the other, and stops it;
// the targets run side by side (each scenario's output is printed in one piece when it ends):
//   - the SDK demo (dist-demo/examples/demo/main.js), every scenario below;
//   - the MCP-Nest demo (dist-demo/examples/mcp-nest/main.js, `@rekog/mcp-nest` with McpNestElicitationModule),
//     the elicitation and input_required scenarios of both eras.
// Per era:
//   - the 2025-11-25 list with `--spec-version 2025-11-25` (initialize handshake, stateful sessions);
//   - the 2026-07-28 list with `--spec-version 2026-07-28` (stateless requests with the `_meta` envelope,
//     SDK 2.x: the input-required-result-* scenarios, server-stateless, header validation, DNS rebinding), and the
//     Tasks extension's server scenarios (`tasks-*`, with `--force`), counted on a line of their own too.
// It prints `conformance: N passed, M failed` (over every target and list) and exits non-zero on any failure.
// `CONFORMANCE_TARGET=sdk-demo` or `=mcp-nest-demo` runs one target only.
// The apps are stopped in every case. Build the demos first (`npm run conformance` does).
//
// A scenario passes when the CLI exits 0 and its checks.json holds at least one SUCCESS and no FAILURE
// (so a scenario the CLI skips as "not applicable" counts as failed, not passed). WARNINGs are shown.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The 2026-07-28 input_required scenarios, run against both demos. */
const INPUT_REQUIRED_SCENARIOS = [
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
];

/**
 * The Tasks extension's server scenarios (`io.modelcontextprotocol/tasks`, the suite's pending list; the CLI skips an
 * extension scenario under `--spec-version` unless forced). `tasks-status-notifications` is a placeholder upstream.
 */
const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

/** Scenarios per protocol revision; each runs with `--spec-version <revision>` (the wire it speaks). */
const SDK_DEMO_ERAS = [
  {
    // MCP 2025-11-25: SDK 1.x, stateful sessions (initialize, Mcp-Session-Id).
    specVersion: '2025-11-25',
    scenarios: [
      'server-initialize',
      'ping',
      'tools-list',
      'tools-call-elicitation',
      'elicitation-sep1034-defaults',
      'elicitation-sep1330-enums',
      'dns-rebinding-protection',
    ],
  },
  {
    // MCP 2026-07-28: SDK 2.x, one stateless request at a time (input_required + sealed requestState).
    specVersion: '2026-07-28',
    scenarios: [...INPUT_REQUIRED_SCENARIOS, 'server-stateless', 'http-header-validation', 'dns-rebinding-protection'],
  },
  {
    // The Tasks extension on 2026-07-28 (reported on a line of its own).
    specVersion: '2026-07-28',
    extension: 'tasks',
    scenarios: TASK_SCENARIOS,
  },
];

/**
 * The MCP-Nest demo: the scenarios that involve elicitation or input_required, on its @Tool() methods
 * (examples/mcp-nest/conformance-tools.controller.ts runs the SDK demo's bodies through the adapter).
 */
const MCP_NEST_ERAS = [
  {
    // MCP-Nest `statefulMode: true`: SDK 2.x sessions serving 2025-11-25.
    specVersion: '2025-11-25',
    scenarios: ['tools-call-elicitation', 'elicitation-sep1034-defaults', 'elicitation-sep1330-enums'],
  },
  {
    specVersion: '2026-07-28',
    scenarios: [...INPUT_REQUIRED_SCENARIOS, 'server-stateless'],
  },
];

/**
 * The apps under test, each started on its own port, side by side (`CONFORMANCE_TARGET=<key>` runs one of them); the
 * scenarios of one target run one after the other.
 */
const ALL_TARGETS = [
  { key: 'sdk-demo', name: 'SDK demo', main: ['examples', 'demo', 'main.js'], eras: SDK_DEMO_ERAS },
  { key: 'mcp-nest-demo', name: 'MCP-Nest demo', main: ['examples', 'mcp-nest', 'main.js'], eras: MCP_NEST_ERAS },
];
const TARGETS = process.env.CONFORMANCE_TARGET ? ALL_TARGETS.filter((t) => t.key === process.env.CONFORMANCE_TARGET) : ALL_TARGETS;
if (TARGETS.length === 0) throw new Error(`CONFORMANCE_TARGET must be one of ${ALL_TARGETS.map((t) => t.key).join(', ')}`);
/** Every run, in order: one scenario on one revision against one target. */
const RUNS = TARGETS.flatMap((target) =>
  target.eras.flatMap(({ specVersion, extension, scenarios }) =>
    scenarios.map((scenario) => ({ target, scenario, specVersion, extension })),
  ),
);
const STARTUP_TIMEOUT_MS = 30_000;
/** The CLI's own per-scenario timeout, and the hard limit after which its process is killed. */
const SCENARIO_TIMEOUT_MS = 30_000;
const SCENARIO_KILL_MS = 60_000;
/** The whole run (every target and list; a passing run takes about two minutes). */
const TOTAL_TIMEOUT_MS = 10 * 60_000;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const hook = join(root, 'scripts', 'conformance', 'node20-globsync.mjs');

const startedAt = Date.now();
const children = new Set();
const results = [];
/** Set once the run is being cut short (signal, overall timeout): nothing new is started. */
let stopping = false;
let outRoot;
/** Output of every app, by target key (shown for failed targets, and when a start fails). */
const appLogs = new Map();

/** The closing line (also printed when the run is cut short: unrun scenarios count as failed). */
function summaryLine() {
  const passed = results.filter((r) => r.passed).length;
  const tasks = RUNS.filter((r) => r.extension === 'tasks');
  const tasksPassed = results.filter((r) => r.passed && r.run.extension === 'tasks').length;
  const tasksLine = tasks.length > 0 ? `conformance (tasks extension): ${tasksPassed} passed, ${tasks.length - tasksPassed} failed\n` : '';
  return `${tasksLine}conformance: ${passed} passed, ${RUNS.length - passed} failed`;
}

/** Starts a child process that is killed (with its tracking) when the run ends. */
function start(command, args, options) {
  if (stopping) throw new Error('stopping');
  const child = spawn(command, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.once('error', (error) => {
    children.delete(child);
    console.error(`conformance: could not run ${command}: ${error.message}`);
  });
  return child;
}

/** Resolves with the exit code when the child exits or fails to start (or was already gone). */
function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? 1);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code ?? 1));
    child.once('error', () => resolve(1));
  });
}

/** SIGTERM, then SIGKILL after `graceMs`. */
async function stop(child, graceMs = 5_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

/** Cuts the run short: stops every child and removes the results directory. */
async function abort() {
  stopping = true;
  await Promise.all([...children].map((c) => stop(c)));
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
}

// Ctrl-C / CI cancel: never leave the app running.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\nconformance: ${signal}, stopping`);
    console.log(summaryLine());
    void abort().finally(() => process.exit(130));
  });
}

/** The compiled entry point of a target. */
const mainOf = (target) => join(root, 'dist-demo', ...target.main);

/** Starts a target's app and resolves it with its MCP URL, from its "MCP elicitation demo … ready" line. */
function startApp(target) {
  const env = {
    ...process.env,
    MCP_CONFORMANCE: '1',
    HOST: '127.0.0.1',
    PORT: '0', // the demo picks a free port and prints it in the ready line
    PUBLIC_URL: '',
    ELICITATION_STORE: 'memory',
    // One client runs every scenario within a minute or two: the per-user creation limits (elicitations, tasks) raised.
    ELICITATION_CREATE_PER_MINUTE: '10000',
  };
  appLogs.set(target.key, '');
  const app = start(process.execPath, [mainOf(target)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the ${target.name} did not get ready within ${STARTUP_TIMEOUT_MS} ms`)),
      STARTUP_TIMEOUT_MS,
    );
    const onData = (chunk) => {
      appLogs.set(target.key, appLogs.get(target.key) + chunk);
      const match = /MCP elicitation demo\b[^\n]*?\bready\b.*?(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(appLogs.get(target.key));
      if (match) {
        clearTimeout(timer);
        resolve({ app, mcpUrl: match[1] });
      }
    };
    app.stdout.setEncoding('utf8').on('data', onData);
    app.stderr.setEncoding('utf8').on('data', onData);
    app.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the ${target.name} exited before it was ready (${signal ?? `exit ${code}`})`));
    });
  });
}

/** Every checks.json under `dir`. */
function findChecks(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findChecks(path));
    else if (entry.name === 'checks.json') found.push(path);
  }
  return found;
}

/** `target: scenario [revision]`, how a run is named in the output. */
const label = ({ target, scenario, specVersion }) => `${target.name}: ${scenario} [${specVersion}]`;

/**
 * Runs one scenario on one revision; returns its verdict and check counts. Its output is printed in one piece when it
 * ends (the targets run side by side).
 */
async function runScenario(run, mcpUrl, outRoot) {
  const { target, scenario, specVersion } = run;
  const outDir = join(outRoot, target.key, specVersion, scenario);
  let output = '';
  const child = start(
    process.execPath,
    [
      '--import',
      hook,
      cli,
      'server',
      '--url',
      mcpUrl,
      '--scenario',
      scenario,
      '--spec-version',
      specVersion,
      // An extension scenario runs under a --spec-version only when forced.
      ...(run.extension ? ['--force'] : []),
      '--timeout',
      String(SCENARIO_TIMEOUT_MS),
      '-o',
      outDir,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout, child.stderr]) stream?.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    void stop(child);
  }, SCENARIO_KILL_MS);
  const code = await exited(child);
  clearTimeout(timer);
  console.log(`\n=== conformance scenario ${label(run)} ===\n${output.trimEnd()}`);

  const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0 };
  const files = existsSync(outDir) ? findChecks(outDir) : [];
  for (const file of files) {
    for (const check of JSON.parse(readFileSync(file, 'utf8'))) {
      if (check.status in counts) counts[check.status]++;
    }
  }
  const problems = [];
  if (killed) problems.push(`killed after ${SCENARIO_KILL_MS} ms`);
  else if (code !== 0) problems.push(`CLI exit ${code}`);
  if (files.length === 0) problems.push('no checks.json (scenario skipped or crashed)');
  else if (counts.SUCCESS === 0) problems.push('no successful check');
  if (counts.FAILURE > 0) problems.push(`${counts.FAILURE} failed check(s)`);
  return { run, passed: problems.length === 0, counts, problems };
}

/** Starts one target, runs its scenarios in order and stops it (a run after the app died counts as failed). */
async function runTarget(target) {
  let app;
  try {
    const started = await startApp(target);
    app = started.app;
    const mcpUrl = started.mcpUrl;
    const eras = target.eras.map((e) => `${e.specVersion} (${e.scenarios.length} scenarios)`).join(', ');
    console.log(`\nconformance: ${target.name} ready at ${mcpUrl} (MCP_CONFORMANCE=1); spec ${eras}`);
    for (const run of RUNS.filter((r) => r.target === target)) {
      if (stopping) break;
      if (app.exitCode !== null || app.signalCode !== null) {
        results.push({
          run,
          passed: false,
          counts: { SUCCESS: 0, FAILURE: 0, WARNING: 0 },
          problems: [`the ${target.name} is no longer running`],
        });
        continue;
      }
      results.push(await runScenario(run, mcpUrl, outRoot));
    }
  } finally {
    await stop(app);
  }
}

async function main() {
  for (const [what, path] of [...TARGETS.map((target) => [`${target.name} build`, mainOf(target)]), ['conformance CLI', cli]]) {
    if (!existsSync(path)) throw new Error(`${what} not found at ${path} (run npm ci and npm run build:demo)`);
  }
  outRoot = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  await Promise.all(TARGETS.map((target) => runTarget(target)));
  if (stopping) return 1; // cut short: the signal or timeout handler has reported
  results.sort((a, b) => RUNS.indexOf(a.run) - RUNS.indexOf(b.run));

  console.log('\n=== conformance summary ===');
  for (const r of results) {
    const { SUCCESS, FAILURE, WARNING } = r.counts;
    const detail = `${SUCCESS} checks passed, ${FAILURE} failed${WARNING ? `, ${WARNING} warnings` : ''}`;
    console.log(`${r.passed ? 'PASS' : 'FAIL'} ${label(r.run)}: ${detail}${r.problems.length ? ` (${r.problems.join('; ')})` : ''}`);
  }
  const failed = results.filter((r) => !r.passed);
  if (failed.length > 0) {
    console.log(`\nconformance: results kept in ${outRoot}`);
    for (const target of TARGETS.filter((t) => failed.some((r) => r.run.target === t))) {
      const log = appLogs.get(target.key);
      if (log) console.log(`--- ${target.name} output ---\n${log.trimEnd()}\n--- end of ${target.name} output ---`);
    }
  } else {
    rmSync(outRoot, { recursive: true, force: true });
  }
  console.log(`conformance: ${results.length} scenario runs in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  console.log(summaryLine());
  return failed.length === 0 && results.length === RUNS.length ? 0 : 1;
}

const deadline = setTimeout(() => {
  console.error(`\nconformance: gave up after ${TOTAL_TIMEOUT_MS} ms`);
  console.log(summaryLine());
  void abort().finally(() => process.exit(1));
}, TOTAL_TIMEOUT_MS);

main()
  .then((code) => {
    clearTimeout(deadline);
    process.exitCode = code;
  })
  .catch(async (error) => {
    if (stopping) return; // the signal or timeout handler reports and exits
    clearTimeout(deadline);
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
    for (const [key, log] of appLogs) if (log) console.error(`--- ${key} output ---\n${log.trimEnd()}\n--- end of ${key} output ---`);
    await abort();
    console.log(summaryLine());
    process.exitCode = 1;
  });
