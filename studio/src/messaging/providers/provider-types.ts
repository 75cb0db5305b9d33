/** What each kind of provider is configured with (core/notify/channels/*-record.ts validates the same): the form's
 * fields per channel and type, which are secrets (masked by the API), and how the form's text becomes the `config`
 * the API takes. */
import { MASK, type Channel } from '../api.ts';

export interface ConfigField {
  key: string;
  label: string;
  kind: 'text' | 'number' | 'boolean' | 'secret' | 'url' | 'email';
  required?: boolean;
  note?: string;
  placeholder?: string;
}

export interface ProviderKind {
  channel: Channel;
  /** svc_notify_providers.type (null for chat and in-app). */
  type: string | null;
  label: string;
  fields: ConfigField[];
  /** A delivery-report adapter exists for this type (POST /notify/webhooks/{type}). */
  webhooks: boolean;
}

const FROM: ConfigField = { key: 'from', label: 'From', kind: 'text', required: true, placeholder: 'News <news@example.com>', note: 'An address, or "Name <address>".' };

export const PROVIDER_KINDS: ProviderKind[] = [
  {
    channel: 'email', type: 'smtp', label: 'SMTP server', webhooks: false,
    fields: [
      { key: 'host', label: 'Host', kind: 'text', required: true, placeholder: 'smtp.example.com' },
      { key: 'port', label: 'Port', kind: 'number', required: true, placeholder: '587' },
      { key: 'secure', label: 'Use TLS from the start (port 465)', kind: 'boolean' },
      { key: 'user', label: 'User name', kind: 'text' },
      { key: 'pass', label: 'Password', kind: 'secret' },
      FROM,
    ],
  },
  {
    channel: 'email', type: 'gateway_mail', label: 'Mail gateway (HTTP API)', webhooks: true,
    fields: [
      { key: 'base_url', label: 'Base URL', kind: 'url', required: true, placeholder: 'https://mail.example.com/v1', note: 'Messages are posted to <base URL>/send.' },
      { key: 'api_key', label: 'API key', kind: 'secret', required: true },
      FROM,
    ],
  },
  {
    channel: 'email', type: 'cloud_mail', label: 'Cloud mail (SES)', webhooks: true,
    fields: [
      { key: 'region', label: 'Region', kind: 'text', required: true, placeholder: 'eu-west-1' },
      { key: 'access_key', label: 'Access key', kind: 'secret', required: true },
      { key: 'secret_key', label: 'Secret key', kind: 'secret', required: true },
      FROM,
      { key: 'endpoint', label: 'Endpoint', kind: 'url', note: 'Only for an SES-compatible service; leave empty for AWS.' },
    ],
  },
  {
    channel: 'email', type: 'sendmail', label: 'Sendmail (local)', webhooks: false,
    fields: [FROM, { key: 'path', label: 'Sendmail path', kind: 'text', placeholder: '/usr/sbin/sendmail' }],
  },
  {
    channel: 'chat', type: null, label: 'Chat webhook', webhooks: false,
    fields: [
      { key: 'url', label: 'Webhook URL', kind: 'url', note: 'Empty: messages go to the chat URL of the settings.' },
      { key: 'token', label: 'Bearer token', kind: 'secret' },
    ],
  },
  { channel: 'inapp', type: null, label: 'In-app notifications', webhooks: false, fields: [] },
];

export function kindsOf(channel: Channel): ProviderKind[] {
  return PROVIDER_KINDS.filter((k) => k.channel === channel);
}

export function kindOf(channel: Channel, type: string | null): ProviderKind | undefined {
  return PROVIDER_KINDS.find((k) => k.channel === channel && k.type === type);
}

export function typeLabel(channel: Channel, type: string | null): string {
  return kindOf(channel, type)?.label ?? type ?? '';
}

/** The form's values of a stored config (secrets stay MASK; booleans as 'true'/''). */
export function formValues(kind: ProviderKind, config: Record<string, unknown> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of kind.fields) {
    const v = config?.[f.key];
    out[f.key] = f.kind === 'boolean' ? (v === true ? 'true' : '') : v === null || v === undefined ? '' : String(v);
  }
  return out;
}

/** The `config` to send: every field of the type (an emptied optional field is null, so a partial update does not
 * keep its old value); a secret left as MASK keeps the stored value on the server. */
export function configOf(kind: ProviderKind, values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of kind.fields) {
    const raw = values[f.key] ?? '';
    if (f.kind === 'boolean') out[f.key] = raw === 'true';
    else if (f.kind === 'number') out[f.key] = raw.trim() === '' ? null : Number(raw);
    else if (f.kind === 'secret' && raw === MASK) out[f.key] = MASK;
    else out[f.key] = raw.trim() === '' ? null : raw.trim();
  }
  return out;
}
