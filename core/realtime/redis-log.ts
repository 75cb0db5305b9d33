/** The change log in a Redis stream (docs/realtime.md > Across instances): every process appends (XADD, the
 * stream assigns the increasing id), every container reads it (XREAD BLOCK on a connection of its own) and fans
 * the changes out to its subscribers; the stream keeps REALTIME_RETENTION_EVENTS entries (MAXLEN on each append)
 * and REALTIME_RETENTION of time (MINID, trimmed by the readers), which is what a reconnecting subscriber can be
 * given again. Whether a subscriber's last id is still covered is what the stream itself records (XINFO STREAM:
 * its first entry, and whether anything was trimmed). */
import { Redis } from 'ioredis';
import { compareIds, type Change, type ChangeAction, type NewChange } from './change.ts';
import type { ChangeLog, Retention } from './log.ts';

const TRIM_EVERY_MS = 5000;
const BLOCK_MS = 5000;
const BATCH = 1000;

type StreamEntry = [id: string, fields: string[]];

function toChange([id, fields]: StreamEntry): Change | null {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
  try {
    const keys = JSON.parse(f.k ?? '[]') as unknown;
    if (!Array.isArray(keys) || !f.c || !['create', 'update', 'delete'].includes(f.a)) return null;
    return { id, event: f.e ?? id, collection: f.c, action: f.a as ChangeAction, keys: keys as (string | number)[] };
  } catch {
    return null;
  }
}

export class RedisChangeLog implements ChangeLog {
  readonly shared = true;
  readonly #key: string;
  readonly #writer: Redis;
  #reader: Redis | null = null;
  #closed = false;
  #trimTimer: NodeJS.Timeout | null = null;
  #loop: Promise<void> | null = null;

  /** `writer` is the shared store's client (commands fail fast when Redis is away); reads that block get their own
   * connection, opened by the first listen. */
  constructor(writer: Redis, private readonly url: string, prefix: string, private readonly retention: Retention) {
    this.#writer = writer;
    this.#key = `${prefix}realtime:changes`;
  }

  async append(changes: NewChange[]): Promise<void> {
    if (changes.length === 0) return;
    const pipeline = this.#writer.pipeline();
    for (const c of changes) {
      pipeline.xadd(this.#key, 'MAXLEN', '~', String(this.retention.events), '*',
        'c', c.collection, 'a', c.action, 'k', JSON.stringify(c.keys), 'e', c.event);
    }
    const results = await pipeline.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  /** The stream's state: the newest id, and whether entries before `first` were trimmed away. Redis 7's
   * `max-deleted-entry-id` counts XDEL only, not trimming, so what a trim took is told by `entries-added` (every
   * entry ever added) exceeding `length`: then nothing before the first entry kept can be given again. */
  async #info(): Promise<{ last: string; first: string | null; trimmed: boolean } | null> {
    try {
      const raw = await this.#writer.call('XINFO', 'STREAM', this.#key) as unknown[];
      const info: Record<string, unknown> = {};
      for (let i = 0; i + 1 < raw.length; i += 2) info[String(raw[i])] = raw[i + 1];
      const firstEntry = info['first-entry'] as [string, unknown] | null | undefined;
      const first = firstEntry?.[0] ?? null;
      const added = Number(info['entries-added'] ?? 0);
      const length = Number(info.length ?? 0);
      return { last: String(info['last-generated-id'] ?? '0-0'), first, trimmed: added > length };
    } catch (err) {
      if (/no such key/i.test((err as Error).message)) return null;
      throw err;
    }
  }

  /** Whether every change after `id` is still in the stream. */
  #covers(info: { last: string; first: string | null; trimmed: boolean } | null, id: string): boolean {
    // No stream: Redis lost it (a restart without persistence), so what came after `id` is unknown. An id newer
    // than the stream's newest comes from a stream that has since been lost.
    if (!info || compareIds(id, info.last) > 0) return false;
    if (!info.trimmed) return true;
    return info.first === null ? compareIds(id, info.last) === 0 : compareIds(id, info.first) >= 0;
  }

  async since(id: string): Promise<Change[] | null> {
    if (!this.#covers(await this.#info(), id)) return null;
    const out: Change[] = [];
    let from = `(${id}`;
    for (;;) {
      const entries = await this.#writer.xrange(this.#key, from, '+', 'COUNT', BATCH) as StreamEntry[];
      for (const e of entries) {
        const c = toChange(e);
        if (c) out.push(c);
      }
      if (entries.length < BATCH) break;
      from = `(${entries[entries.length - 1][0]}`;
    }
    // Trimmed while we read: the first entries after `id` may be gone.
    if (!this.#covers(await this.#info(), id)) return null;
    return out;
  }

  async head(): Promise<string> {
    return (await this.#info())?.last ?? '0-0';
  }

  listen(listener: (changes: Change[]) => void): void {
    if (this.#loop) throw new Error('the change log has a listener already');
    const reader = new Redis(this.url, { maxRetriesPerRequest: null, connectionName: 'svc-realtime-reader' });
    reader.on('error', () => {});
    this.#reader = reader;
    this.#loop = this.#read(reader, listener);
    this.#trimTimer = setInterval(() => {
      const minId = `${Date.now() - this.retention.ms}-0`;
      this.#writer.xtrim(this.#key, 'MINID', '~', minId).catch(() => {});
    }, TRIM_EVERY_MS);
    this.#trimTimer.unref();
  }

  async #read(reader: Redis, listener: (changes: Change[]) => void): Promise<void> {
    let last: string | null = null;
    while (!this.#closed) {
      try {
        if (last === null) last = (await this.#info())?.last ?? '0-0';
        const res = await reader.xread('COUNT', BATCH, 'BLOCK', BLOCK_MS, 'STREAMS', this.#key, last) as [string, StreamEntry[]][] | null;
        if (!res) continue;
        const entries = res[0][1];
        if (entries.length === 0) continue;
        last = entries[entries.length - 1][0];
        const changes = entries.map(toChange).filter((c): c is Change => c !== null);
        if (changes.length) listener(changes);
      } catch (err) {
        if (this.#closed) return;
        console.error('realtime: reading the change stream failed, retrying:', (err as Error).message);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#trimTimer) clearInterval(this.#trimTimer);
    this.#reader?.disconnect();
    await this.#loop?.catch(() => {});
  }
}
