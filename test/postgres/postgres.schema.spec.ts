/**
 * The shipped migration, sql/postgres/0001_elicitation.sql, is `schemaSql()` for the default names: one text, written
 * here when it changes (`UPDATE_SQL=1 npx jest test/postgres/postgres.schema.spec.ts`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { qualified, schemaSql, SCHEMA_VERSION } from '../../src/postgres/postgres.schema.js';

const FILE = 'sql/postgres/0001_elicitation.sql';

describe('the PostgreSQL schema', () => {
  it(`ships as ${FILE}, equal to schemaSql() for the default names`, () => {
    if (process.env.UPDATE_SQL === '1') writeFileSync(FILE, schemaSql());
    expect(readFileSync(FILE, 'utf8')).toBe(schemaSql());
  });

  it('puts every table and function under the schema and prefix given, and records its version', () => {
    const sql = schemaSql({ schema: 'tenant_a', prefix: 'mcp_' });
    expect(sql).toContain(`CREATE TABLE IF NOT EXISTS ${qualified({ schema: 'tenant_a', prefix: 'mcp_' }, 'records')}`);
    expect(sql).not.toContain('elicitation_');
    expect(sql).toContain(`VALUES ('schema_version', '${SCHEMA_VERSION}')`);
  });
});
