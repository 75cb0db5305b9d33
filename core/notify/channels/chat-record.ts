/** The chat channel: one JSON post per message to the provider's url (an incoming-webhook style endpoint), or to the
 * notify settings' chat_url when the provider has none or no chat provider is enabled. Recipients are kept as given
 * (the endpoint decides what they mean). */
import { definedKeys, httpUrl, optionalString, rejectUnknown } from '../payload-fields.ts';
import type { NotifyProvider } from '../providers-store.ts';
import { plainRecipientList } from '../recipients.ts';
import type { SendSettings } from '../send-settings.ts';
import type { ChannelRecord } from './record.ts';
import type { SenderSpec } from './resolve.ts';
import { ProviderError } from './types.ts';

const P = 'config.';
const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function validateConfig(_type: string | null, c: Record<string, unknown>): Record<string, unknown> {
  rejectUnknown(c, ['url', 'token'], P);
  // The url may be left out: the provider then posts to the notify settings' chat_url (checked at send time).
  return definedKeys({ url: httpUrl(`${P}url`, c.url, false), token: optionalString(`${P}token`, c.token, 4096) });
}

function fromProvider(p: NotifyProvider, settings: SendSettings | null): SenderSpec {
  const own = s(p.config.url);
  if (own) return { kind: 'chat', url: own, token: s(p.config.token) };
  // No url of its own: the settings' chat_url, with the provider's token or else the settings' one (which thus
  // only ever goes to the settings' own url).
  const url = settings?.chat_url ?? null;
  if (!url) throw new ProviderError(`Chat provider "${p.name}" has no url, and the notify settings have no chat_url`);
  return { kind: 'chat', url, token: s(p.config.token) ?? settings?.chat_token ?? null };
}

export const chatChannel = {
  catalogue: { name: 'Chat', description: 'Messages posted to a chat webhook.', icon: 'chat', order: 3 },
  providerTypes: [],
  validateConfig,
  recipients: {
    needsUsers: false,
    of: (_who, given) => given,
    test: plainRecipientList,
  },
  message: { layout: false, copies: false },
  delivery: {
    kind: 'remote',
    fromProvider,
    fromSettings: (st) => (st.chat_url ? { kind: 'chat', url: st.chat_url, token: st.chat_token } : null),
    fromConfig: () => null,
  },
} as const satisfies ChannelRecord;
