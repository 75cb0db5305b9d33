/** The svc_notify_settings singleton as the sending side needs it (secrets opened; missing row = all defaults). */
import { run, type Executor } from '../db/database.ts';
import { parseJsonColumn } from './providers-store.ts';
import { openValue } from './secrets.ts';

export interface SendSettings {
  email_transport: 'smtp' | 'cloud_mail' | 'sendmail';
  smtp_host: string | null;
  smtp_port: number | null;
  smtp_user: string | null;
  smtp_pass: string | null;
  smtp_secure: boolean;
  cloud_mail_region: string | null;
  cloud_mail_access_key: string | null;
  cloud_mail_secret_key: string | null;
  email_from: string | null;
  admin_emails: string[];
  chat_url: string | null;
  chat_token: string | null;
  default_locale: string;
  default_channels: string[] | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : []);

export async function readSendSettings(db: Executor, secret: string): Promise<SendSettings> {
  const [row] = await run(db, 'select * from svc_notify_settings where id = 1');
  const r = row ?? {};
  const transport = r.email_transport === 'cloud_mail' || r.email_transport === 'sendmail' ? r.email_transport : 'smtp';
  const channels = parseJsonColumn(r.default_channels);
  return {
    email_transport: transport,
    smtp_host: str(r.smtp_host),
    smtp_port: typeof r.smtp_port === 'number' ? r.smtp_port : null,
    smtp_user: str(r.smtp_user),
    smtp_pass: str(openValue(r.smtp_pass, secret)),
    smtp_secure: r.smtp_secure === true,
    cloud_mail_region: str(r.cloud_mail_region),
    cloud_mail_access_key: str(openValue(r.cloud_mail_access_key, secret)),
    cloud_mail_secret_key: str(openValue(r.cloud_mail_secret_key, secret)),
    email_from: str(r.email_from),
    admin_emails: strings(parseJsonColumn(r.admin_emails)),
    chat_url: str(r.chat_url),
    chat_token: str(openValue(r.chat_token, secret)),
    default_locale: str(r.default_locale) ?? 'en',
    default_channels: Array.isArray(channels) ? strings(channels) : null,
  };
}
