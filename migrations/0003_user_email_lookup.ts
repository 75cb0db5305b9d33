/** Logins, invitations and registration find users by email case-insensitively (`lower(email) = lower($1)`):
 * an expression index keeps that an index lookup instead of a scan of svc_users. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw('create index svc_users_email_lower_idx on svc_users (lower(email))').execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('drop index if exists svc_users_email_lower_idx').execute(db);
}
