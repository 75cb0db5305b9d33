/** Which provider sends a log (SPEC.md > Notification module): the log's provider when it is still enabled, else the
 * channel's enabled primary, else the module settings (svc_notify_settings: email_transport, smtp_ and cloud_mail_ fields,
 * chat_url/chat_token), else the EMAIL_* configuration (email only). A chat provider without a url of its own posts
 * to the settings' chat_url. The result is a plain spec; `createSender` turns it into a sender. */
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/database.ts';
import { loadProvider, primaryProvider, type NotifyProvider } from '../providers-store.ts';
import { readSendSettings, type SendSettings } from '../send-settings.ts';
import { chatSender } from './chat.ts';
import { cloudMailSender } from './cloud-mail.ts';
import { gatewayMailSender } from './gateway-mail.ts';
import { sendmailSender, smtpSender } from './smtp.ts';
import { ProviderError, type ChannelSender } from './types.ts';

export type SenderSpec =
  | { kind: 'smtp'; host: string; port: number; secure: boolean; user: string | null; pass: string | null; from: string }
  | { kind: 'sendmail'; path: string | null; from: string }
  | { kind: 'cloud_mail'; region: string; access_key: string; secret_key: string; from: string; endpoint: string | null }
  | { kind: 'gateway_mail'; base_url: string; api_key: string; from: string }
  | { kind: 'chat'; url: string; token: string | null };

export interface Resolved { spec: SenderSpec; providerId: number | null }

const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function fromOf(p: NotifyProvider, settings: SendSettings | null, config: Config): string {
  return s(p.config.from) ?? settings?.email_from ?? config.emailFrom;
}

export function specOfProvider(p: NotifyProvider, settings: SendSettings | null, config: Config): SenderSpec {
  const c = p.config;
  if (p.channel === 'chat') {
    const own = s(c.url);
    if (own) return { kind: 'chat', url: own, token: s(c.token) };
    // No url of its own: the settings' chat_url, with the provider's token or else the settings' one (which thus
    // only ever goes to the settings' own url).
    const url = settings?.chat_url ?? null;
    if (!url) throw new ProviderError(`Chat provider "${p.name}" has no url, and the notify settings have no chat_url`);
    return { kind: 'chat', url, token: s(c.token) ?? settings?.chat_token ?? null };
  }
  if (p.channel !== 'email') throw new ProviderError(`Provider "${p.name}" (${p.channel}) does not send messages`);
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

function specOfSettings(channel: string, st: SendSettings, config: Config): SenderSpec | null {
  const from = st.email_from ?? config.emailFrom;
  if (channel === 'chat') return st.chat_url ? { kind: 'chat', url: st.chat_url, token: st.chat_token } : null;
  if (channel !== 'email') return null;
  if (st.email_transport === 'sendmail') return { kind: 'sendmail', path: null, from };
  if (st.email_transport === 'cloud_mail') {
    return st.cloud_mail_region && st.cloud_mail_access_key && st.cloud_mail_secret_key
      ? { kind: 'cloud_mail', region: st.cloud_mail_region, access_key: st.cloud_mail_access_key, secret_key: st.cloud_mail_secret_key, from, endpoint: null }
      : null;
  }
  return st.smtp_host ? { kind: 'smtp', host: st.smtp_host, port: st.smtp_port ?? 587, secure: st.smtp_secure, user: st.smtp_user, pass: st.smtp_pass, from } : null;
}

export function specOfConfig(config: Config): SenderSpec {
  if (config.emailTransport === 'sendmail') return { kind: 'sendmail', path: null, from: config.emailFrom };
  return { kind: 'smtp', host: config.emailSmtpHost, port: config.emailSmtpPort, secure: config.emailSmtpSecure, user: config.emailSmtpUser, pass: config.emailSmtpPassword, from: config.emailFrom };
}

export async function resolveSender(db: Executor, config: Config, channel: string, providerId: number | null): Promise<Resolved> {
  const settings = await readSendSettings(db, config.secret);
  if (providerId !== null) {
    const p = await loadProvider(db, config.secret, providerId);
    if (p && p.enabled && p.channel === channel) return { spec: specOfProvider(p, settings, config), providerId: p.id };
  }
  if (channel === 'email' || channel === 'chat') {
    const primary = await primaryProvider(db, config.secret, channel);
    if (primary) return { spec: specOfProvider(primary, settings, config), providerId: primary.id };
  }
  const fromSettings = specOfSettings(channel, settings, config);
  if (fromSettings) return { spec: fromSettings, providerId: null };
  if (channel === 'email') return { spec: specOfConfig(config), providerId: null };
  throw new ProviderError(`No ${channel} provider is configured`);
}

/** `pool`: SMTP connections kept open for reuse (0 for a one-off send). */
export function createSender(spec: SenderSpec, pool = 0): ChannelSender {
  switch (spec.kind) {
    case 'smtp': return smtpSender({ ...spec, pool });
    case 'sendmail': return sendmailSender(spec);
    case 'cloud_mail': return cloudMailSender(spec);
    case 'gateway_mail': return gatewayMailSender(spec);
    case 'chat': return chatSender(spec);
  }
}
