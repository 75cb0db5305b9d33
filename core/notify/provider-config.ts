/** Notification provider configuration per channel and type (SPEC.md > svc_notify_providers): which types a channel's
 * providers take and which config keys each kind takes, both from the channel's record (channels/registry.ts). Works
 * on the plain values (masked ones already replaced by the stored ones); sealing happens after (core/notify/secrets.ts). */
import { InvalidPayloadError } from '../errors.ts';
import { channelRecord, type Channel, type ProviderType } from './channels/registry.ts';
import { optionalObject } from './payload-fields.ts';

export function validateProviderType(channel: Channel, type: unknown): ProviderType | null {
  const types = channelRecord(channel).providerTypes;
  if (types.length) {
    if (typeof type !== 'string' || !types.includes(type)) {
      throw new InvalidPayloadError(`"type" is required for the ${channel} channel: one of ${types.join(', ')}.`, { field: 'type' });
    }
    return type as ProviderType;
  }
  if (type !== null && type !== undefined) throw new InvalidPayloadError(`"type" must be null for the ${channel} channel.`, { field: 'type' });
  return null;
}

/** The validated configuration (unknown keys refused). */
export function validateProviderConfig(channel: Channel, type: ProviderType | null, raw: unknown): Record<string, unknown> {
  return channelRecord(channel).validateConfig(type, optionalObject('config', raw) ?? {});
}
