/** The notification channels, each one record (./record.ts): the one place their names are listed. The channel
 * lists of the API (trigger and template `channels`, settings' default_channels, a provider's `channel`), the
 * catalogue of GET /notify/channels, provider type and config validation, recipients, senders and the database's
 * CHECK on svc_notify_providers.channel (migrations/notify-channel-check.ts) are all derived from it. */
import { InvalidPayloadError } from '../../errors.ts';
import { chatChannel } from './chat-record.ts';
import { emailChannel } from './email-record.ts';
import { inAppChannel } from './inapp-record.ts';
import type { CatalogueEntry, ChannelRecord } from './record.ts';

/** In this order in messages that list them. */
export const CHANNELS = {
  email: emailChannel,
  chat: chatChannel,
  inapp: inAppChannel,
} as const satisfies Record<string, ChannelRecord>;

export type Channel = keyof typeof CHANNELS;
/** svc_notify_providers.type values, over all channels. */
export type ProviderType = (typeof CHANNELS)[Channel]['providerTypes'][number];

export const CHANNEL_IDS = Object.keys(CHANNELS) as readonly Channel[];

export function isChannel(v: unknown): v is Channel {
  return typeof v === 'string' && Object.hasOwn(CHANNELS, v);
}

/** The record of a channel (widened: callers read it as any channel's). */
export function channelRecord(channel: Channel): ChannelRecord {
  return CHANNELS[channel];
}

export interface ChannelInfo { id: Channel; name: string; description: string; icon: string }

/** GET /notify/channels. */
export const CHANNEL_CATALOG: readonly ChannelInfo[] = CHANNEL_IDS
  .map((id): [Channel, CatalogueEntry] => [id, CHANNELS[id].catalogue])
  .sort(([, a], [, b]) => a.order - b.order)
  .map(([id, { name, description, icon }]) => ({ id, name, description, icon }));

function fail(field: string, what: string): never {
  throw new InvalidPayloadError(`"${field}" ${what}.`, { field });
}

/** A payload's list of channels (template `channels`, settings' default_channels): known, no repeats. */
export function channelList(field: string, v: unknown, opts: { nonEmpty: boolean }): Channel[] | null | undefined {
  if (v === undefined || (v === null && !opts.nonEmpty)) return v as null | undefined;
  if (!Array.isArray(v)) fail(field, `must be an array of channels (${CHANNEL_IDS.join(', ')})`);
  if (opts.nonEmpty && v.length === 0) fail(field, 'must name at least one channel');
  for (const c of v) {
    if (!isChannel(c)) fail(field, `must only contain known channels (${CHANNEL_IDS.join(', ')}), got ${JSON.stringify(c).slice(0, 40)}`);
  }
  if (new Set(v).size !== v.length) fail(field, 'must not repeat a channel');
  return v as Channel[];
}
