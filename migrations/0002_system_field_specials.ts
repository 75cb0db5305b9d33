/** Field specials of system collections (as Directus' system field data): comment and share authorship and
 * dates stamped automatically, share passwords hashed on write and concealed on read. */
import { sql, type Kysely } from 'kysely';

const FIELDS: [string, string, string][] = [
  ['svc_comments', 'user_created', 'user-created'],
  ['svc_comments', 'date_created', 'date-created'],
  ['svc_comments', 'user_updated', 'user-updated'],
  ['svc_comments', 'date_updated', 'date-updated'],
  ['svc_shares', 'user_created', 'user-created'],
  ['svc_shares', 'date_created', 'date-created'],
  ['svc_shares', 'password', 'hash,conceal'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [collection, field, special] of FIELDS) {
    await sql`insert into svc_fields (collection, field, special) values (${collection}, ${field}, ${special})
      on conflict (collection, field) do update set special = excluded.special`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [collection, field] of FIELDS) {
    await sql`delete from svc_fields where collection = ${collection} and field = ${field}`.execute(db);
  }
}
