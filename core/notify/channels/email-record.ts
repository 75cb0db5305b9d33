/** The email channel: providers of four types (SMTP, cloud mail, sendmail, an HTTP mail gateway), layouts, cc/bcc;
 * without a provider the notify settings' transport, else the server's EMAIL_* configuration. */
import type { Config } from '../../config.ts';
import { InvalidPayloadError } from '../../errors.ts';
import { definedKeys, httpUrl, optionalBoolean, optionalString, rejectUnknown, requiredPort, requiredString, sender } from '../payload-fields.ts';
import type { NotifyProvider } from '../providers-store.ts';
import { emailList } from '../recipients.ts';
import type { SendSettings } from '../send-settings.ts';
import type { ChannelRecord } from './record.ts';
import type { SenderSpec } from './resolve.ts';
import { ProviderError } from './types.ts';

export const EMAIL_TYPES = ['smtp', 'cloud_mail', 'sendmail', 'gateway_mail'] as const;

const P = 'config.';
const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function validateConfig(type: string | null, c: Record<string, unknown>): Record<string, unknown> {
  switch (type) {
    case 'smtp':
      rejectUnknown(c, ['host', 'port', 'secure', 'user', 'pass', 'from'], P);
      return definedKeys({
        host: requiredString(`${P}host`, c.host), port: requiredPort(`${P}port`, c.port), secure: optionalBoolean(`${P}secure`, c.secure),
        user: optionalString(`${P}user`, c.user), pass: optionalString(`${P}pass`, c.pass, 4096), from: sender(`${P}from`, c.from, true),
      });
    case 'cloud_mail':
      rejectUnknown(c, ['region', 'access_key', 'secret_key', 'from', 'endpoint'], P);
      return definedKeys({
        region: requiredString(`${P}region`, c.region, 64), access_key: requiredString(`${P}access_key`, c.access_key, 4096),
        secret_key: requiredString(`${P}secret_key`, c.secret_key, 4096), from: sender(`${P}from`, c.from, true),
        endpoint: httpUrl(`${P}endpoint`, c.endpoint, false),
      });
    case 'gateway_mail':
      rejectUnknown(c, ['base_url', 'api_key', 'from'], P);
      return definedKeys({
        base_url: httpUrl(`${P}base_url`, c.base_url, true), api_key: requiredString(`${P}api_key`, c.api_key, 4096),
        from: sender(`${P}from`, c.from, true),
      });
    case 'sendmail':
      rejectUnknown(c, ['path', 'from'], P);
      return definedKeys({ path: optionalString(`${P}path`, c.path, 1024), from: sender(`${P}from`, c.from, true) });
    default:
      throw new InvalidPayloadError('"type" is required for the email channel.', { field: 'type' });
  }
}

function fromOf(p: NotifyProvider, settings: SendSettings | null, config: Config): string {
  return s(p.config.from) ?? settings?.email_from ?? config.emailFrom;
}

function fromProvider(p: NotifyProvider, settings: SendSettings | null, config: Config): SenderSpec {
  const c = p.config;
  switch (p.type) {
    case 'smtp':
      return { kind: 'smtp', host: s(c.host) ?? 'localhost', port: typeof c.port === 'number' ? c.port : Number(c.port ?? 587), secure: c.secure === true, user: s(c.user), pass: s(c.pass), from: fromOf(p, settings, config) };
    case 'sendmail':
      return { kind: 'sendmail', path: s(c.path), from: fromOf(p, settings, config) };
    case 'cloud_mail':
      return { kind: 'cloud_mail', region: s(c.region) ?? 'us-east-1', access_key: s(c.access_key) ?? '', secret_key: s(c.secret_key) ?? '', from: fromOf(p, settings, config), endpoint: s(c.endpoint) };
    case 'gateway_mail': {
      const base = s(c.base_url);
      if (!base) throw new ProviderError(`Provider "${p.name}" has no base_url`);
      return { kind: 'gateway_mail', base_url: base, api_key: s(c.api_key) ?? '', from: fromOf(p, settings, config) };
    }
    default:
      throw new ProviderError(`Email provider "${p.name}" has no type`);
  }
}

function fromSettings(st: SendSettings, config: Config): SenderSpec | null {
  const from = st.email_from ?? config.emailFrom;
  if (st.email_transport === 'sendmail') return { kind: 'sendmail', path: null, from };
  if (st.email_transport === 'cloud_mail') {
    return st.cloud_mail_region && st.cloud_mail_access_key && st.cloud_mail_secret_key
      ? { kind: 'cloud_mail', region: st.cloud_mail_region, access_key: st.cloud_mail_access_key, secret_key: st.cloud_mail_secret_key, from, endpoint: null }
      : null;
  }
  return st.smtp_host ? { kind: 'smtp', host: st.smtp_host, port: st.smtp_port ?? 587, secure: st.smtp_secure, user: st.smtp_user, pass: st.smtp_pass, from } : null;
}

/** EMAIL_TRANSPORT and EMAIL_SMTP_*: the service's own mail works with no provider and no settings. */
export function fromConfig(config: Config): SenderSpec {
  if (config.emailTransport === 'sendmail') return { kind: 'sendmail', path: null, from: config.emailFrom };
  return { kind: 'smtp', host: config.emailSmtpHost, port: config.emailSmtpPort, secure: config.emailSmtpSecure, user: config.emailSmtpUser, pass: config.emailSmtpPassword, from: config.emailFrom };
}

export const emailChannel = {
  catalogue: { name: 'Email', description: 'Email through the primary email provider (SMTP, cloud mail, sendmail or a mail gateway).', icon: 'mail', order: 1 },
  providerTypes: EMAIL_TYPES,
  validateConfig,
  recipients: {
    needsUsers: false,
    of: (who) => who.emails(),
    test: (raw) => emailList('recipients', raw, true),
  },
  message: { layout: true, copies: true },
  delivery: { kind: 'remote', fromProvider, fromSettings, fromConfig },
} as const satisfies ChannelRecord;
