/** Which provider sends a log (SPEC.md > Notification module): the log's provider when it is still enabled, else the
 * channel's enabled primary, else the module settings (svc_notify_settings: email_transport, smtp_ and cloud_mail_ fields,
 * chat_url/chat_token), else the EMAIL_* configuration (email only). How a provider, the settings and the configuration
 * become a sender is the channel record's (channels/registry.ts). The result is a plain spec; `createSender` turns it
 * into a sender. */
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/database.ts';
import { loadProvider, primaryProvider, type NotifyProvider } from '../providers-store.ts';
import { readSendSettings, type SendSettings } from '../send-settings.ts';
import { chatSender } from './chat.ts';
import { cloudMailSender } from './cloud-mail.ts';
import { gatewayMailSender } from './gateway-mail.ts';
import { channelRecord, isChannel } from './registry.ts';
import { sendmailSender, smtpSender } from './smtp.ts';
import { ProviderError, type ChannelSender } from './types.ts';

export type SenderSpec =
  | { kind: 'smtp'; host: string; port: number; secure: boolean; user: string | null; pass: string | null; from: string }
  | { kind: 'sendmail'; path: string | null; from: string }
  | { kind: 'cloud_mail'; region: string; access_key: string; secret_key: string; from: string; endpoint: string | null }
  | { kind: 'gateway_mail'; base_url: string; api_key: string; from: string }
  | { kind: 'chat'; url: string; token: string | null };

export interface Resolved { spec: SenderSpec; providerId: number | null }

/** A provider's sender, as its channel's record builds it (ProviderError when its channel sends nothing out). */
export function specOfProvider(p: NotifyProvider, settings: SendSettings | null, config: Config): SenderSpec {
  const delivery = isChannel(p.channel) ? channelRecord(p.channel).delivery : null;
  if (delivery?.kind !== 'remote') throw new ProviderError(`Provider "${p.name}" (${p.channel}) does not send messages`);
  return delivery.fromProvider(p, settings, config);
}

export async function resolveSender(db: Executor, config: Config, channel: string, providerId: number | null): Promise<Resolved> {
  const settings = await readSendSettings(db, config.secret);
  if (providerId !== null) {
    const p = await loadProvider(db, config.secret, providerId);
    if (p && p.enabled && p.channel === channel) return { spec: specOfProvider(p, settings, config), providerId: p.id };
  }
  const delivery = isChannel(channel) ? channelRecord(channel).delivery : null;
  if (isChannel(channel) && delivery?.kind === 'remote') {
    const primary = await primaryProvider(db, config.secret, channel);
    if (primary) return { spec: specOfProvider(primary, settings, config), providerId: primary.id };
    const spec = delivery.fromSettings(settings, config) ?? delivery.fromConfig(config);
    if (spec) return { spec, providerId: null };
  }
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
