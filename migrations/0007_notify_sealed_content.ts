/** Direct service mail (invitations, password resets, e-mail verification) carries a live token. Its log keeps a
 * readable copy with the token redacted in `content_rendered`, and the message as sent, encrypted with the server
 * SECRET, in `content_sealed` (concealed on read), which the worker decrypts at send time and clears once the log
 * is sent, failed or cancelled.
 *
 * Logs written before hold their link's token in clear: those no longer waiting to be sent get it redacted here
 * (the SECRET is not known to a migration, so pending ones cannot be sealed; they stay as they are, admin-only). */
import { sql, type Kysely } from 'kysely';

export const REDACT_STORED_TOKENS = `update svc_notify_logs
  set content_rendered = regexp_replace(content_rendered, 'token=[A-Za-z0-9_.%-]+', 'token=[redacted]', 'g')
  where template_id is null and channel = 'email' and status not in ('pending', 'sending')
    and (metadata::jsonb ->> 'kind') in ('invite', 'password-reset', 'verify-email')
    and content_rendered ~ 'token=[A-Za-z0-9_.%-]'`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw('alter table svc_notify_logs add column content_sealed text').execute(db);
  await sql.raw(REDACT_STORED_TOKENS).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('alter table svc_notify_logs drop column if exists content_sealed').execute(db);
}
