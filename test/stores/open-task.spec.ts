/**
 * "An open task" is defined once (`OPEN_TASK_STATUSES`, stores/task-store.ts): the TypeScript helpers derive from it,
 * the Redis task scripts and the PostgreSQL schema are written from it, and this test holds their text to it. That
 * every store counts exactly those statuses as open is a test of the store contract (store-contract.tasks.ts), run on
 * memory, Redis and PostgreSQL.
 */
import { describe, expect, it } from '@jest/globals';
import { schemaSql } from '../../src/postgres/postgres.schema.js';
import { LUA_IS_OPEN, TASK_SCRIPTS } from '../../src/redis/redis.tasks.js';
import {
  isOpenTaskStatus,
  isTerminalTaskStatus,
  OPEN_TASK_STATUSES,
  TASK_STATUSES,
  TERMINAL_TASK_STATUSES,
} from '../../src/stores/task-store.js';

/** The statuses only a task has (a record has completed and cancelled too). */
const TASK_ONLY = TASK_STATUSES.filter((status) => !['completed', 'cancelled'].includes(status));

describe('an open task, defined once', () => {
  it('is working or waiting for input; every other status is final', () => {
    expect(OPEN_TASK_STATUSES).toEqual(['working', 'input_required']);
    expect([...TERMINAL_TASK_STATUSES].sort()).toEqual(TASK_STATUSES.filter((s) => !OPEN_TASK_STATUSES.includes(s)).sort());
    for (const status of TASK_STATUSES) expect(isOpenTaskStatus(status)).toBe(!isTerminalTaskStatus(status));
  });

  it('is the set the Redis task scripts test a status against, and they name no status otherwise', () => {
    const listed = [...LUA_IS_OPEN.matchAll(/\["([a-z_]+)"\] = true/g)].map((m) => m[1]);
    expect(listed).toEqual(OPEN_TASK_STATUSES);
    for (const { lua } of Object.values(TASK_SCRIPTS)) {
      // A script that tests a status (the create and the write) has the one set; the read tests none.
      if (lua.includes('is_open[')) expect(lua).toContain(LUA_IS_OPEN);
      const rest = lua.replace(LUA_IS_OPEN, '');
      for (const status of TASK_STATUSES) expect(rest).not.toMatch(new RegExp(`['"]${status}['"]`));
    }
  });

  it('is the list of every status test of the PostgreSQL schema, which names the statuses of tasks nowhere else', () => {
    const sql = schemaSql();
    const lists = [...sql.matchAll(/status (?:NOT )?IN \(([^)]*)\)/g)].map((m) => m[1]);
    // The open-task index, create_task's count, and the two indexes of finished tasks (NOT IN).
    expect(lists).toHaveLength(4);
    for (const list of lists) expect(list).toBe(OPEN_TASK_STATUSES.map((s) => `'${s}'`).join(', '));
    const rest = sql.replace(/status (?:NOT )?IN \([^)]*\)/g, '');
    for (const status of TASK_ONLY) expect(rest).not.toContain(`'${status}'`);
  });
});
