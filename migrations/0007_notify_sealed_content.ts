/** Direct service mail (invitations, password resets, e-mail verification) carries a live token. Its log keeps a
 * readable copy with the token redacted in `content_rendered`, and the message as sent, encrypted with the server
 * SECRET, in `content_sealed` (concealed on read), which the worker decrypts at send time and clears once the log
 * is sent, failed or cancelled. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw('alter table svc_notify_logs add column content_sealed text').execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('alter table svc_notify_logs drop column if exists content_sealed').execute(db);
}
