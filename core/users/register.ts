/** Public registration as Directus (settings.public_registration*): POST /users/register creates a user
 * with the registration role, `unverified` and mailed a verification link when
 * public_registration_verify_email is on (else active); GET /users/register/verify-email activates. An
 * email that is already taken gets the same 204 and no mail, so registration reveals no accounts. */
import { randomUUID } from 'node:crypto';
import { run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { enforcePasswordPolicy } from '../auth/password-policy.ts';
import { hashPassword } from '../auth/passwords.ts';
import { queueDirectEmailInBackground } from '../notify/direct.ts';
import { linkMessage } from '../mail/mailer.ts';
import type { ConfigPort, DatabasePort, QueuePort, SchemaPort } from '../ports.ts';
import { emailAllowed } from './email-filter.ts';
import { optionalString, requiredString } from './lookup.ts';
import { checkEmail } from './payload.ts';
import { signMailToken, verifyMailToken } from './tokens.ts';
import { mailLink, publicPath } from './urls.ts';
import { activateUnverifiedUser, insertRegisteredUser, userByEmail } from './table.ts';

interface RegistrationSettings {
  public_registration: boolean;
  public_registration_verify_email: boolean;
  public_registration_role: string | null;
  public_registration_email_filter: unknown;
}

export async function registerUser(services: ConfigPort & DatabasePort & QueuePort & SchemaPort, body: Record<string, unknown>): Promise<void> {
  const { config } = services;
  const db = services.database.db;
  const [settings] = await run<RegistrationSettings>(db, `select public_registration, public_registration_verify_email,
    public_registration_role, public_registration_email_filter from svc_settings limit 1`);
  if (!settings?.public_registration) throw new ForbiddenError();
  const email = checkEmail(requiredString(body, 'email'));
  const password = requiredString(body, 'password');
  const firstName = optionalString(body, 'first_name');
  const lastName = optionalString(body, 'last_name');
  if ((firstName?.length ?? 0) > 50 || (lastName?.length ?? 0) > 50) throw new InvalidPayloadError('Names may be at most 50 characters long.');
  const fallback = publicPath(config.publicUrl, '/users/register/verify-email');
  const link = (token: string) => mailLink(body.verification_url, config.userRegisterUrlAllowList, fallback, token, 'verify registrations');
  link('check');
  if (!emailAllowed(settings.public_registration_email_filter, email)) throw new ForbiddenError();
  await enforcePasswordPolicy(db, password);

  const verify = settings.public_registration_verify_email;
  // Hashed before the lookup so a taken email answers as slowly as a new one.
  const hashed = await hashPassword(password);
  const existing = await userByEmail(db, email);
  let mailTo: string | null = null;
  if (!existing) {
    await insertRegisteredUser(db, {
      id: randomUUID(), email, password: hashed, role: settings.public_registration_role, status: verify ? 'unverified' : 'active',
      first_name: firstName ?? null, last_name: lastName ?? null,
    });
    await services.schema.invalidate();
    mailTo = verify ? email : null;
  } else if (verify && existing.status === 'unverified') {
    mailTo = existing.email;
  }
  if (mailTo) {
    const token = await signMailToken({ email: mailTo, scope: 'pending-registration' }, config.secret, config.userInviteTokenTtlMs);
    // Through the notification outbox, queued without delaying the answer (a taken email answers as fast).
    const mail = linkMessage(mailTo, 'Verify your email address',
      `Thanks for registering with ${config.projectName}. Open the link below to verify your email address.`, link(token));
    queueDirectEmailInBackground(db, services.queue, config.secret, { to: mail.to, subject: mail.subject, html: mail.html, kind: 'verify-email', secrets: [token] }, (err) => {
      if (config.logLevel !== 'silent' && config.logLevel !== 'fatal') console.error('Could not queue the verification mail:', err);
    });
  }
}

export async function verifyRegistration(services: ConfigPort & DatabasePort & SchemaPort, token: unknown): Promise<void> {
  if (token === undefined || token === null || token === '') throw new InvalidPayloadError('"token" is required');
  const { email } = await verifyMailToken(token, services.config.secret, 'pending-registration');
  if (!await activateUnverifiedUser(services.database.db, email)) throw new InvalidPayloadError('Invalid verification code.');
  await services.schema.invalidate();
}
