/** svc_collections.search_index: the collection asked for a trigram index serving `search` (issue 13). The
 * index itself is built outside any transaction after a schema change (core/schema/ddl/indexes.ts). */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw('alter table svc_collections add column search_index boolean not null default false').execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('alter table svc_collections drop column search_index').execute(db);
}
