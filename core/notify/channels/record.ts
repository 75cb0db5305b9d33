/** What one notification channel is: everything the module needs to know about it, in one record. The records are
 * listed once, in ./registry.ts; trigger, test-send, the worker, the provider admin and GET /notify/channels read them
 * there, so adding a channel is adding a record (and its sender), not a hunt through the module. */
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/database.ts';
import type { NotifyProvider } from '../providers-store.ts';
import type { ResolvedRecipients } from '../recipients.ts';
import type { SendSettings } from '../send-settings.ts';
import type { SenderSpec } from './resolve.ts';
import type { ChannelSender } from './types.ts';

/** Its entry in GET /notify/channels (the id is the registry key). */
export interface CatalogueEntry {
  name: string;
  description: string;
  icon: string;
  /** Place in the catalogue, which lists the channels in an order of its own (email, in-app, chat). */
  order: number;
}

/** Messages that leave through a provider (a mail server, an HTTP endpoint): resolved per log as the log's provider,
 * else the channel's enabled primary provider, else the notify settings, else the server configuration. */
export interface RemoteDelivery {
  kind: 'remote';
  fromProvider(provider: NotifyProvider, settings: SendSettings | null, config: Config): SenderSpec;
  /** null: the settings configure no sender for this channel. */
  fromSettings(settings: SendSettings, config: Config): SenderSpec | null;
  /** The last resort (null: none, the send fails). */
  fromConfig(config: Config): SenderSpec | null;
}

/** Messages delivered inside this database (inbox rows): an immediate send is written in the trigger's own
 * transaction (its log is `sent` at once); a scheduled one is sent by the worker through `sender`. Its providers only
 * name the channel's template contents. An inbox notice always has a subject (the template id when none renders). */
export interface InboxDelivery {
  kind: 'inbox';
  sender(db: Executor): ChannelSender;
  /** POST /notify/test-send through one of its providers: a notice from `sender` (a user id) delivered at once;
   * reaching no one is `success: false`. */
  test(db: Executor, sender: string | null, recipients: string[], subject: string, content: string): Promise<TestResult>;
}

export interface TestResult { success: boolean; message: string }

export interface ChannelRecord {
  catalogue: CatalogueEntry;
  /** svc_notify_providers.type values of the channel's providers; empty: `type` must be null. */
  providerTypes: readonly string[];
  /** A provider's config for `type` (a plain object, masked values already replaced by stored ones): the validated
   * config, unknown keys refused (INVALID_PAYLOAD naming `config.<key>`). */
  validateConfig(type: string | null, config: Record<string, unknown>): Record<string, unknown>;
  recipients: {
    /** POST /notify/trigger: whether addresses must be looked up as users. */
    needsUsers: boolean;
    /** POST /notify/trigger: who a message on this channel goes to, from the checked recipients. */
    of(who: ResolvedRecipients, given: string[]): string[];
    /** POST /notify/test-send: the body's `recipients` checked as this channel takes them. */
    test(raw: unknown): string[];
  };
  message: {
    /** Whether the template's layout wraps the content. */
    layout: boolean;
    /** Whether cc and bcc (and cc_admin's addresses) are kept. */
    copies: boolean;
  };
  delivery: RemoteDelivery | InboxDelivery;
}
