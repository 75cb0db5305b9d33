/** Notification provider configuration per channel and type (SPEC.md > svc_notify_providers): which keys each
 * kind takes and which are required. Works on the plain values (masked ones already replaced by the stored
 * ones); sealing happens after (core/notify/secrets.ts). */
import { InvalidPayloadError } from '../errors.ts';
import type { Channel } from './payload-fields.ts';
import {
  httpUrl, optionalBoolean, optionalObject, optionalString, rejectUnknown, requiredPort, requiredString, sender,
} from './payload-fields.ts';

export const EMAIL_TYPES = ['smtp', 'cloud_mail', 'sendmail', 'gateway_mail'] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];

const P = 'config.';

export function validateProviderType(channel: Channel, type: unknown): EmailType | null {
  if (channel === 'email') {
    if (typeof type !== 'string' || !(EMAIL_TYPES as readonly string[]).includes(type)) {
      throw new InvalidPayloadError(`"type" is required for the email channel: one of ${EMAIL_TYPES.join(', ')}.`, { field: 'type' });
    }
    return type as EmailType;
  }
  if (type !== null && type !== undefined) throw new InvalidPayloadError(`"type" must be null for the ${channel} channel.`, { field: 'type' });
  return null;
}

/** The validated configuration (unknown keys refused). */
export function validateProviderConfig(channel: Channel, type: EmailType | null, raw: unknown): Record<string, unknown> {
  const c = optionalObject('config', raw) ?? {};
  const out = (keys: Record<string, unknown>): Record<string, unknown> => {
    const r: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(keys)) if (v !== undefined) r[k] = v;
    return r;
  };
  if (channel === 'chat') {
    rejectUnknown(c, ['url', 'token'], P);
    // The url may be left out: the provider then posts to the notify settings' chat_url (checked at send time).
    return out({ url: httpUrl(`${P}url`, c.url, false), token: optionalString(`${P}token`, c.token, 4096) });
  }
  if (channel === 'inapp') {
    rejectUnknown(c, [], P);
    return {};
  }
  switch (type) {
    case 'smtp':
      rejectUnknown(c, ['host', 'port', 'secure', 'user', 'pass', 'from'], P);
      return out({
        host: requiredString(`${P}host`, c.host), port: requiredPort(`${P}port`, c.port), secure: optionalBoolean(`${P}secure`, c.secure),
        user: optionalString(`${P}user`, c.user), pass: optionalString(`${P}pass`, c.pass, 4096), from: sender(`${P}from`, c.from, true),
      });
    case 'cloud_mail':
      rejectUnknown(c, ['region', 'access_key', 'secret_key', 'from', 'endpoint'], P);
      return out({
        region: requiredString(`${P}region`, c.region, 64), access_key: requiredString(`${P}access_key`, c.access_key, 4096),
        secret_key: requiredString(`${P}secret_key`, c.secret_key, 4096), from: sender(`${P}from`, c.from, true),
        endpoint: httpUrl(`${P}endpoint`, c.endpoint, false),
      });
    case 'gateway_mail':
      rejectUnknown(c, ['base_url', 'api_key', 'from'], P);
      return out({
        base_url: httpUrl(`${P}base_url`, c.base_url, true), api_key: requiredString(`${P}api_key`, c.api_key, 4096),
        from: sender(`${P}from`, c.from, true),
      });
    case 'sendmail':
      rejectUnknown(c, ['path', 'from'], P);
      return out({ path: optionalString(`${P}path`, c.path, 1024), from: sender(`${P}from`, c.from, true) });
    default:
      throw new InvalidPayloadError('"type" is required for the email channel.', { field: 'type' });
  }
}
