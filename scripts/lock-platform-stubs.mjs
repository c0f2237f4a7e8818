#!/usr/bin/env node
// The npm registry reachable from the project's machines serves only the Linux builds of some native
// packages (e.g. unrs-resolver's bindings, used by jest 30). npm then leaves the other platforms' optional
// dependencies out of package-lock.json, and `npm ci` refuses the lock as "out of sync".
// This adds a lock entry, with the os/cpu read from the package name, for every missing optional
// dependency; npm skips such entries on other platforms without fetching them.
// Run it after `npm install` changed the lock: `node scripts/lock-platform-stubs.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openharmony', 'win32', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['x64', 'arm64', 'arm', 'ia32', 'ppc64', 'riscv64', 's390x', 'loong64', 'wasm32'];

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${path}/node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[nested] || packages[hoisted]) continue;
    const tokens = name.split(/[/@_-]/);
    const os = OS.find((o) => tokens.includes(o));
    const cpu = CPU.find((c) => tokens.includes(c));
    if (!os || !cpu) {
      console.warn(`cannot tell the platform of ${name}; left out`);
      continue;
    }
    packages[hoisted] = { version, cpu: [cpu], dev: meta.dev || undefined, optional: true, os: [os] };
    added++;
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform stub(s) to package-lock.json`);
