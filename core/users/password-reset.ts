/** Password reset as Directus: POST /auth/password/request always answers 204 (whether the email is
 * known is never revealed; the mail goes out after the response) and mails a token carrying a digest of
 * the current password hash, so it stops working once the password changed; POST /auth/password/reset
 * sets the new password. */
import { createHash } from 'node:crypto';
import { inTransaction } from '../db/database.ts';
import { InvalidTokenError } from '../errors.ts';
import { enforcePasswordPolicy } from '../auth/password-policy.ts';
import { hashPassword } from '../auth/passwords.ts';
import { publishRevocation, revokeSessions } from '../auth/user-revocation.ts';
import { queueDirectEmailInBackground } from '../notify/direct.ts';
import { linkMessage } from '../mail/mailer.ts';
import type { ConfigPort, DatabasePort, QueuePort, SchemaPort, StorePort } from '../ports.ts';
import { requiredString } from './lookup.ts';
import { checkEmail } from './payload.ts';
import { signMailToken, verifyMailToken } from './tokens.ts';
import { mailLink, publicPath } from './urls.ts';
import { replacePassword, userByEmail } from './table.ts';

function digest(passwordHash: string | null): string {
  return createHash('sha256').update(passwordHash ?? '').digest('base64url').slice(0, 22);
}

export async function requestPasswordReset(services: ConfigPort & DatabasePort & QueuePort, body: Record<string, unknown>): Promise<void> {
  const { config } = services;
  const email = checkEmail(requiredString(body, 'email'));
  const fallback = publicPath(config.publicUrl, '/admin/reset-password');
  const link = (token: string) => mailLink(body.reset_url, config.passwordResetUrlAllowList, fallback, token, 'reset passwords');
  link('check');
  const user = await userByEmail(services.database.db, email);
  if (!user || user.status !== 'active') return;
  const token = await signMailToken({ email: user.email, scope: 'password-reset', hash: digest(user.password) }, config.secret, config.passwordResetTokenTtlMs);
  // Through the notification outbox (a log the worker sends and retries), queued without delaying the answer.
  const mail = linkMessage(user.email, 'Password Reset Request',
    `A password reset was requested for your ${config.projectName} account. Open the link below to choose a new password. If you did not ask for it, ignore this email.`,
    link(token));
  queueDirectEmailInBackground(services.database.db, services.queue, config.secret, { to: mail.to, subject: mail.subject, html: mail.html, kind: 'password-reset', secrets: [token] }, (err) => {
    if (config.logLevel !== 'silent' && config.logLevel !== 'fatal') console.error('Could not queue the password reset mail:', err);
  });
}

/** A token for another password (already used, or the password changed since) is 401 INVALID_TOKEN. */
export async function resetPassword(services: ConfigPort & DatabasePort & SchemaPort & StorePort, body: Record<string, unknown>): Promise<void> {
  const token = requiredString(body, 'token');
  const password = requiredString(body, 'password');
  const claims = await verifyMailToken(token, services.config.secret, 'password-reset');
  const db = services.database.db;
  const user = await userByEmail(db, claims.email);
  if (!user || user.status !== 'active' || claims.hash !== digest(user.password)) throw new InvalidTokenError();
  await enforcePasswordPolicy(db, password);
  const hashed = await hashPassword(password);
  const revocation = await inTransaction(db, async (trx) => {
    if (!await replacePassword(trx, user.id, hashed, user.password)) throw new InvalidTokenError();
    // Whoever knew the old password (or held a session) is out: every session ends.
    return revokeSessions(trx, [user.id], null);
  });
  await publishRevocation(services, revocation);
  await services.schema.invalidate();
}
