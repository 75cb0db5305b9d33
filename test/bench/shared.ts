/** Small helpers every bench file uses: database URLs, one-off queries, number formatting. */
import pg from 'pg';

export { withDatabase } from '../helpers/template.ts';

/** Runs one statement on its own connection. */
export async function query(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows;
  } finally {
    await client.end();
  }
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
