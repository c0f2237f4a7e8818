import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { describe } from '@jest/globals';
import { describeOrSkip } from './describe-or-skip.js';

/** The PostgreSQL server binaries of the machine (Debian: /usr/lib/postgresql/<major>/bin), newest first. */
function binaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return majors.map((major) => join(root, major, 'bin')).find((dir) => existsSync(join(dir, 'pg_ctl')));
}

const BIN = binaries();
/** initdb refuses root: as root the cluster is made and run as the `postgres` user. */
const AS_ROOT = process.getuid?.() === 0;

/** `describe` for tests that start a PostgreSQL server of their own (skipped without the binaries unless REQUIRE_POSTGRES=1). */
export const describeWithPostgresBinaries: typeof describe = describeOrSkip(
  BIN ? undefined : 'no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)',
  'REQUIRE_POSTGRES',
);

/** A PostgreSQL cluster of a test's own, on a loopback port, trust auth for `postgres`. */
export interface PrivatePostgres {
  url: string;
  stop(): void;
  /** Stops the server (fast: connections are cut) and starts it again on the same port and data. */
  restart(): void;
}

function run(command: string, args: string[]): void {
  const [file, argv] = AS_ROOT ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

/** Makes a cluster in a temporary directory and starts it on `port`. */
export function startPrivatePostgres(port: number): PrivatePostgres {
  if (!BIN) throw new Error('no PostgreSQL server binaries');
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'));
  const data = join(dir, 'data');
  if (AS_ROOT) {
    chownSync(
      dir,
      Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
      Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
    );
  }
  chmodSync(dir, 0o700);
  run(join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => run(join(BIN, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
  const stop = () => run(join(BIN, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => {
      stop();
      start();
    },
    stop: () => {
      try {
        stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
