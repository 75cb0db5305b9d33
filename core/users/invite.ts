/** Invitations (SPEC.md > Users, User status): POST /users/invite creates invited users (or re-sends to
 * users still invited) and mails each a link with a signed `{email, scope: 'invite'}` token valid
 * USER_INVITE_TOKEN_TTL; POST /users/invite/accept sets the password and activates the account. */
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { enforcePasswordPolicy } from '../auth/password-policy.ts';
import { hashPassword } from '../auth/passwords.ts';
import { linkMessage } from '../mail/mailer.ts';
import { queueDirectEmail } from '../notify/direct.ts';
import type { ConfigPort, DatabasePort, QueuePort, SchemaPort } from '../ports.ts';
import { requiredString } from './lookup.ts';
import { activateInvitedUser, insertInvitedUser, userByEmail } from './table.ts';
import { checkEmail } from './payload.ts';
import { signMailToken, verifyMailToken } from './tokens.ts';
import { mailLink, publicPath } from './urls.ts';
import { isUuid } from '../uuid.ts';

const MAX_INVITES = 100;

export async function inviteUsers(services: ConfigPort & QueuePort & SchemaPort, ctx: ServiceContext, body: Record<string, unknown>): Promise<void> {
  if (!ctx.accountability.admin) throw new ForbiddenError();
  const { config } = services;
  const raw = body.email;
  if (raw === undefined || raw === null || raw === '') throw new InvalidPayloadError('"email" is required');
  const emails = (Array.isArray(raw) ? raw : [raw]).map((e) => checkEmail(e));
  if (emails.length === 0) throw new InvalidPayloadError('"email" must contain at least 1 items');
  if (emails.length > MAX_INVITES) throw new InvalidPayloadError(`"email" must contain less than or equal to ${MAX_INVITES} items`);
  const role = body.role;
  if (role === undefined || role === null) throw new InvalidPayloadError('"role" is required');
  if (!isUuid(role)) throw new InvalidPayloadError('"role" must be a valid GUID');
  const fallback = publicPath(config.publicUrl, '/admin/accept-invite');
  const link = (token: string) => mailLink(body.invite_url, config.userInviteUrlAllowList, fallback, token, 'invite users');
  link('check'); // rejects a disallowed invite_url before anything is written

  // One transaction: the invited users and their mails (pending logs of the notification outbox, sent and retried
  // by its worker), so the answer does not depend on the mail server and nothing is half-written.
  const [known] = await run(ctx.db, 'select 1 from svc_roles where id = $1', [role]);
  if (!known) throw new InvalidPayloadError(`Role "${role}" doesn't exist.`);
  const toCreate: string[] = [];
  const toMail: string[] = [];
  for (const email of new Set(emails)) {
    const user = await userByEmail(ctx.db, email);
    if (!user) {
      toCreate.push(email);
      toMail.push(email);
    } else if (user.status === 'invited') {
      toMail.push(user.email);
    } // anyone else already has an account: nothing to send
  }
  if (toMail.length === 0) return;
  const tokens = await Promise.all(toMail.map((email) => signMailToken({ email, scope: 'invite' }, config.secret, config.userInviteTokenTtlMs)));

  await inTransaction(ctx.db, async (trx) => {
    for (const email of toCreate) {
      // A concurrent invitation or sign-up of the same address wins; this one then has nothing to add.
      await insertInvitedUser(trx, randomUUID(), email, role);
    }
    for (const [i, email] of toMail.entries()) {
      const mail = linkMessage(email, "You've been invited",
        `You have been invited to ${config.projectName}. Open the link below to accept the invitation and choose a password.`, link(tokens[i]));
      await queueDirectEmail(trx, services.queue, config.secret, { to: mail.to, subject: mail.subject, html: mail.html, kind: 'invite', secrets: [tokens[i]] });
    }
  });
  if (toCreate.length) await services.schema.invalidate();
}

export async function acceptInvite(services: ConfigPort & DatabasePort & SchemaPort, body: Record<string, unknown>): Promise<void> {
  const token = requiredString(body, 'token');
  const password = requiredString(body, 'password');
  const { email } = await verifyMailToken(token, services.config.secret, 'invite');
  const db = services.database.db;
  const user = await userByEmail(db, email);
  if (!user || user.status !== 'invited') throw new InvalidPayloadError(`Email address ${email} hasn't been invited.`);
  await enforcePasswordPolicy(db, password);
  await activateInvitedUser(db, user.id, await hashPassword(password));
  await services.schema.invalidate();
}
