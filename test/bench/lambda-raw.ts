/** The raw reference of the Lambda cold-start bench (test/bench/lambda-cold-start.ts): the least a Hono Lambda on
 * this stack does for the same events, bundled the same way (scripts/build-lambda.ts). Hono behind `hono/aws-lambda`, a
 * Kysely over a pg pool of 2 created on the first event, which runs one query (as the real first event's extension
 * lookup opens the first connection); GET /server/ping answers `pong`, GET /items/:collection selects `fields` (a
 * comma list, checked as identifiers) with `limit` from the table. No configuration, authentication, permissions,
 * schema overview or query language: the difference to the real bundle is what those cost. */
import { Hono } from 'hono';
import { handle, type LambdaContext, type LambdaEvent } from 'hono/aws-lambda';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';

let db: Kysely<Record<string, Record<string, unknown>>> | null = null;
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

const app = new Hono();
app.get('/server/ping', (c) => c.text('pong'));
app.get('/items/:collection', async (c) => {
  const collection = c.req.param('collection');
  const fields = (c.req.query('fields') ?? 'id').split(',');
  if (![collection, ...fields].every((n) => IDENTIFIER.test(n))) return c.json({ errors: [{ message: 'bad name' }] }, 400);
  const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
  const rows = await db!.selectFrom(collection).select(fields).limit(limit).execute();
  return c.json({ data: rows });
});
const inner = handle(app);

export async function handler(event: LambdaEvent, context: LambdaContext) {
  if (!db) {
    db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 }) }) });
    await sql`select 1`.execute(db);
  }
  return inner(event, context);
}
