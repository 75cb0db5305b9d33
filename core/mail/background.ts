/** Mail that must not delay the response (so its timing tells nothing, e.g. whether an email is known):
 * sent after the handler returns; failures are logged, never surfaced. */
import type { Config } from '../config.ts';
import { sendMail, type MailMessage } from './mailer.ts';

export function sendInBackground(config: Config, message: MailMessage): void {
  void sendMail(config, message).catch((err: unknown) => {
    if (config.logLevel !== 'silent' && config.logLevel !== 'fatal') console.error('Could not send mail:', err);
  });
}
