/** The channel registry (core/notify/channels/registry.ts) is where a channel is defined: the catalogue of
 * GET /notify/channels, provider type and config validation, the channel lists of payloads and the sender all come
 * from a channel's record. No database: the records are plain objects, replaced or added here for a moment. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Config } from '../../core/config.ts';
import type { Executor } from '../../core/db/database.ts';
import { CHANNEL_CATALOG as SERVED_CATALOG } from '../../core/notify/channel-catalog.ts';
import type { ChannelRecord } from '../../core/notify/channels/record.ts';
import { CHANNEL_CATALOG, CHANNEL_IDS, CHANNELS, channelList, isChannel } from '../../core/notify/channels/registry.ts';
import { specOfProvider } from '../../core/notify/channels/resolve.ts';
import type { ChannelSender } from '../../core/notify/channels/types.ts';
import { SenderPool } from '../../core/notify/outbox/senders.ts';
import { validateProviderConfig, validateProviderType } from '../../core/notify/provider-config.ts';
import type { NotifyProvider } from '../../core/notify/providers-store.ts';

const registry = CHANNELS as unknown as Record<string, ChannelRecord>;
const provider = (channel: string, config: Record<string, unknown> = {}): NotifyProvider => ({
  id: 7, name: 'p', channel: channel as NotifyProvider['channel'], type: null, config, is_primary: true, enabled: true, webhook_enabled: false, webhook_secret: null,
});

/** A channel that exists only in this test: one record, nothing else. */
const pager: ChannelRecord = {
  catalogue: { name: 'Pager', description: 'Test only.', icon: 'pager', order: 9 },
  providerTypes: ['beeper'],
  validateConfig: (type, c) => ({ type, number: c.number }),
  recipients: { needsUsers: false, of: (_who, given) => given, test: () => [] },
  message: { layout: false, copies: false },
  delivery: { kind: 'remote', fromProvider: (p) => ({ kind: 'chat', url: `http://pager.test/${String(p.config.number)}`, token: null }), fromSettings: () => null, fromConfig: () => null },
};

afterEach(() => {
  vi.restoreAllMocks();
  delete registry.pager;
});

describe('channel registry', () => {
  it('lists email, chat and in-app, and the catalogue GET /notify/channels serves is built from their records', () => {
    expect(CHANNEL_IDS).toEqual(['email', 'chat', 'inapp']);
    expect(SERVED_CATALOG).toBe(CHANNEL_CATALOG);
    // The catalogue keeps its own published order (email, in-app, chat).
    expect(CHANNEL_CATALOG.map((c) => c.id)).toEqual(['email', 'inapp', 'chat']);
    for (const entry of CHANNEL_CATALOG) {
      const { name, description, icon } = CHANNELS[entry.id].catalogue;
      expect(entry).toEqual({ id: entry.id, name, description, icon });
    }
  });

  it('validates provider type and config through the channel record', () => {
    const chat = vi.spyOn(CHANNELS.chat, 'validateConfig');
    expect(validateProviderConfig('chat', null, { url: 'https://hooks.test/x', token: 't' })).toEqual({ url: 'https://hooks.test/x', token: 't' });
    expect(chat).toHaveBeenCalledWith(null, { url: 'https://hooks.test/x', token: 't' });
    expect(() => validateProviderType('email', 'pigeon')).toThrow(`one of ${CHANNELS.email.providerTypes.join(', ')}`);
    expect(() => validateProviderType('inapp', 'smtp')).toThrow('"type" must be null for the inapp channel');
    expect(() => validateProviderConfig('inapp', null, { url: 'x' })).toThrow('Unknown field "config.url"');
  });

  it('builds senders from the channel record: remote specs for providers, the inbox sender for in-app', async () => {
    const chat = vi.spyOn(CHANNELS.chat.delivery, 'fromProvider');
    expect(specOfProvider(provider('chat', { url: 'https://hooks.test/y' }), null, {} as Config)).toEqual({ kind: 'chat', url: 'https://hooks.test/y', token: null });
    expect(chat).toHaveBeenCalledOnce();
    expect(() => specOfProvider(provider('inapp'), null, {} as Config)).toThrow('does not send messages');

    const inbox: ChannelSender = { send: async () => ({ messageId: null, response: {} }), close() {} };
    const made = vi.spyOn(CHANNELS.inapp.delivery, 'sender').mockReturnValue(inbox);
    const pool = new SenderPool({} as Executor, {} as Config, 1);
    expect(await pool.get('inapp', 3)).toEqual({ sender: inbox, providerId: 3 });
    expect(await pool.get('inapp', null)).toEqual({ sender: inbox, providerId: null });
    expect(made).toHaveBeenCalledOnce(); // one sender per pool, reused
  });

  it('a channel added as one record is known to payloads, provider validation and sending', () => {
    expect(isChannel('pager')).toBe(false);
    expect(() => channelList('channels', ['email', 'pager'], { nonEmpty: true })).toThrow('must only contain known channels (email, chat, inapp)');
    registry.pager = pager;
    expect(isChannel('pager')).toBe(true);
    expect(channelList('channels', ['email', 'pager'], { nonEmpty: true })).toEqual(['email', 'pager']);
    expect(validateProviderType('pager' as never, 'beeper')).toBe('beeper');
    expect(() => validateProviderType('pager' as never, null)).toThrow('"type" is required for the pager channel: one of beeper.');
    expect(validateProviderConfig('pager' as never, 'beeper' as never, { number: 42 })).toEqual({ type: 'beeper', number: 42 });
    expect(specOfProvider(provider('pager', { number: 42 }), null, {} as Config)).toEqual({ kind: 'chat', url: 'http://pager.test/42', token: null });
  });
});
