/** The typed system tables (core/db/tables.ts) name exactly the columns the migrations create, so a query
 * built through them can't name a column that does not exist nor miss one added by a later migration. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { TABLE_COLUMNS } from '../../core/db/tables.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

describe('typed system tables match the migrated database', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(); });
  afterAll(async () => { await t.close(); });

  for (const [table, columns] of Object.entries(TABLE_COLUMNS)) {
    it(`${table}: the same columns`, async () => {
      const rows = await run<{ column_name: string }>(t.services.database.db,
        'select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1', [table]);
      expect(rows.length).toBeGreaterThan(0);
      expect([...columns].sort()).toEqual(rows.map((r) => r.column_name).sort());
    });
  }
});
