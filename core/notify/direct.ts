/** Direct mail of the service itself (invitations, password resets, verification): a pending email log with
 * template_id null, sent by the outbox worker. The request that asks for it answers whether or not the mail server
 * is up; delivery is retried and visible in /notify/logs (to admins only: core/access/admin-only-rows.ts).
 *
 * Such a mail carries a live token. The log's `content_rendered` holds the message with every secret part replaced
 * by REDACTED, so no reader of the log (admins included) can use it; the message as it is sent is stored encrypted
 * with the server SECRET in `content_sealed` (concealed on read), decrypted by the worker at each attempt and
 * cleared once the log is sent, failed or cancelled (core/notify/outbox/store.ts, core/notify/logs.ts). */
import { encryptSecret } from '../crypto/secret-box.ts';
import { run, type Executor } from '../db/database.ts';
import type { Queue } from '../queue/queue.ts';
import { wakeAfterCommit } from './wake.ts';

export const REDACTED = '[redacted]';

export interface DirectEmail {
  to: string;
  subject: string;
  html: string;
  /** What sent it (metadata.kind), e.g. `invite`. */
  kind: string;
  /** The parts of `html` that must never be stored readable (the link's token). */
  secrets: readonly string[];
}

/** The message with each secret (as given and URL-encoded) replaced by REDACTED. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === '') continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join(REDACTED);
  }
  return out;
}

/** `sealKey`: the server SECRET. */
export async function queueDirectEmail(db: Executor, queue: Queue, sealKey: string, mail: DirectEmail): Promise<number> {
  const shown = redactSecrets(mail.html, mail.secrets);
  const sealed = shown === mail.html ? null : encryptSecret(mail.html, sealKey);
  const [row] = await run<{ id: number }>(db, `insert into svc_notify_logs (status, channel, recipients, subject_rendered, content_rendered, content_sealed, metadata)
    values ('pending', 'email', $1::json, $2, $3, $4, $5::json) returning id`,
  [JSON.stringify([mail.to]), mail.subject, shown, sealed, JSON.stringify({ kind: mail.kind })]);
  wakeAfterCommit(db, queue);
  return row.id;
}

/** Queues without delaying the response (mail whose timing must tell nothing, e.g. whether an email is known).
 * A failed insert is logged; it is lost only if the database refuses the write. */
export function queueDirectEmailInBackground(db: Executor, queue: Queue, sealKey: string, mail: DirectEmail, log: (err: unknown) => void): void {
  void queueDirectEmail(db, queue, sealKey, mail).catch(log);
}
