/**
 * The shipped migrations, the files of sql/postgres/: the newest is `schemaSql()` for the default names, one text,
 * written here when it changes (`UPDATE_SQL=1 npx jest test/postgres/postgres.schema.spec.ts`); an older one never
 * changes once shipped (a migration tool has run it). On a real PostgreSQL: test/postgres/postgres.schema-upgrade.spec.ts.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { qualified } from '../../src/postgres/postgres.names.js';
import { SCHEMA_FILES, SCHEMA_VERSION } from '../../src/postgres/postgres.schema-version.js';
import { schemaSql } from '../../src/postgres/postgres.schema.js';

const NEWEST = SCHEMA_FILES[SCHEMA_FILES.length - 1];

/** The SHA-256 of each shipped file but the newest, as shipped. */
const SHIPPED: Record<string, string> = {
  'sql/postgres/0001_elicitation.sql': '3e3ab28d2c072c431e3ab5f7e829e2d1b7365faec61152d2a62821f80ea2d3f4',
  'sql/postgres/0002_named_columns.sql': '413fc694650fa3390ee1864a4a940a2806c90a339327389a2aa82546586ceeda',
  'sql/postgres/0003_finished_tasks.sql': '0e9272421dde5db5f41074d51dbdb6a11cf396be920b1e207ca6afe6826e7293',
  'sql/postgres/0004_sweep_once.sql': 'ca26bb8d14e510975171a9de736b5bd7366cf83b150007867da7ef22e7d25db2',
  'sql/postgres/0005_notices.sql': '457a7b8693b1bff93a89d14c24d613baba2dc7695dd6adac530982e35cc3e6f0',
};

describe('the PostgreSQL schema', () => {
  it(`ships as ${NEWEST}, equal to schemaSql() for the default names`, () => {
    if (process.env.UPDATE_SQL === '1') writeFileSync(NEWEST, schemaSql());
    expect(readFileSync(NEWEST, 'utf8')).toBe(schemaSql());
  });

  it('ships one file per version, oldest first, and never changes one it shipped before', () => {
    expect(SCHEMA_FILES).toHaveLength(SCHEMA_VERSION);
    expect(readdirSync('sql/postgres').map((file) => `sql/postgres/${file}`)).toEqual(SCHEMA_FILES);
    SCHEMA_FILES.forEach((file, i) => expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^-- .*schema, version ${i + 1}\n`)));
    for (const file of SCHEMA_FILES.slice(0, -1)) {
      expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(SHIPPED[file]);
    }
  });

  it('puts every table and function under the schema and prefix given, and records its version', () => {
    const sql = schemaSql({ schema: 'tenant_a', prefix: 'mcp_' });
    expect(sql).toContain(`CREATE TABLE IF NOT EXISTS ${qualified({ schema: 'tenant_a', prefix: 'mcp_' }, 'records')}`);
    expect(sql).not.toContain('elicitation_');
    expect(sql).toContain(`VALUES ('schema_version', '${SCHEMA_VERSION}')`);
  });
});
