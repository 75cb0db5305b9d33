/** The worker's senders: one per provider configuration, reused across logs (pooled SMTP connections), and the
 * provider resolution of a (channel, provider id) kept for a second so a burst of logs costs no extra reads. A
 * changed configuration resolves to a new spec and gets a new sender; the old one is closed. */
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/database.ts';
import { createSender, resolveSender, type Resolved } from '../channels/resolve.ts';
import { channelRecord, isChannel } from '../channels/registry.ts';
import type { ChannelSender } from '../channels/types.ts';

const RESOLVE_TTL_MS = 1000;
const MAX_SENDERS = 20;

export class SenderPool {
  readonly #resolved = new Map<string, { at: number; value: Promise<Resolved> }>();
  readonly #senders = new Map<string, ChannelSender>();
  /** Senders of channels delivered in this database, by channel. */
  readonly #inbox = new Map<string, ChannelSender>();

  constructor(private readonly db: Executor, private readonly config: Config, private readonly poolSize: number) {}

  async get(channel: string, providerId: number | null): Promise<{ sender: ChannelSender; providerId: number | null }> {
    // Inbox delivery (in-app) writes rows in this database; its provider only names the channel's contents.
    const delivery = isChannel(channel) ? channelRecord(channel).delivery : null;
    if (delivery?.kind === 'inbox') {
      let inbox = this.#inbox.get(channel);
      if (!inbox) this.#inbox.set(channel, inbox = delivery.sender(this.db));
      return { sender: inbox, providerId };
    }
    const key = `${channel}:${providerId ?? ''}`;
    let entry = this.#resolved.get(key);
    if (!entry || Date.now() - entry.at > RESOLVE_TTL_MS) {
      entry = { at: Date.now(), value: resolveSender(this.db, this.config, channel, providerId) };
      this.#resolved.set(key, entry);
      entry.value.catch(() => this.#resolved.delete(key));
    }
    const resolved = await entry.value;
    const specKey = JSON.stringify(resolved.spec);
    let sender = this.#senders.get(specKey);
    if (!sender) {
      sender = createSender(resolved.spec, this.poolSize);
      this.#senders.set(specKey, sender);
      while (this.#senders.size > MAX_SENDERS) {
        const [oldest, s] = this.#senders.entries().next().value as [string, ChannelSender];
        this.#senders.delete(oldest);
        s.close();
      }
    }
    return { sender, providerId: resolved.providerId };
  }

  close(): void {
    for (const s of this.#senders.values()) s.close();
    this.#senders.clear();
    this.#resolved.clear();
  }
}
