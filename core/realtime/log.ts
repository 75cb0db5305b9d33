/** The change log (docs/realtime.md > Resume): every committed item change gets an increasing id, and the recent
 * ones are kept (REALTIME_RETENTION / REALTIME_RETENTION_EVENTS) so a subscriber that reconnects with its last id
 * receives what it missed. Two kinds: in this process (standalone without Redis), and a Redis stream shared by
 * every instance (core/realtime/redis-log.ts), which is also how a change made in one process reaches the
 * subscribers of another. */
import { compareIds, type Change, type NewChange } from './change.ts';

export interface ChangeLog {
  /** Whether other processes read what this one appends (a change appended here reaches every instance). */
  readonly shared: boolean;
  append(changes: NewChange[]): Promise<void>;
  /** The changes after `id` in order, or null when some of them are no longer kept (or `id` was never handed
   * out by this log: a newer id than its head, from a log that has since been lost). */
  since(id: string): Promise<Change[] | null>;
  /** The id of the newest change (a fresh subscriber's starting point). */
  head(): Promise<string>;
  /** Delivers every change appended from now on, in order, in batches. */
  listen(listener: (changes: Change[]) => void): void;
  close(): Promise<void>;
}

export interface Retention {
  ms: number;
  events: number;
}

export class MemoryChangeLog implements ChangeLog {
  readonly shared = false;
  /** Kept changes from `#start` on (the ones before it were dropped; the array is compacted now and then, not on
   * every drop, so a full log costs no copy per append). */
  #entries: Change[] = [];
  #times: number[] = [];
  #start = 0;
  /** Changes at or before this id are not known: the log's start (nothing before this process), then the last
   * dropped entry. */
  #floor: string;
  #lastMs: number;
  #seq = 0;
  readonly #listeners: ((changes: Change[]) => void)[] = [];
  /** Whether a subscriber has asked this log for an id yet. Until then no id of it was handed out, so nobody can
   * ask for what it kept, and it keeps nothing: a process without subscribers holds no change (at REALTIME_RETENTION_EVENTS
   * 100,000 that was megabytes of objects living minutes, which the garbage collector pays for on every write). */
  #recording = false;

  constructor(private readonly retention: Retention) {
    this.#lastMs = Date.now();
    this.#floor = `${this.#lastMs}-0`;
  }

  /** Starts keeping changes; the floor moves to now, so an id older than this start is answered with a resync.
   * A change that commits after this is appended (its tap runs after commit), one committed before is in the
   * first read of whoever asked. */
  #record(): void {
    if (this.#recording) return;
    this.#recording = true;
    this.#lastMs = Math.max(this.#lastMs, Date.now());
    this.#seq = 0;
    this.#floor = `${this.#lastMs}-0`;
  }

  #nextId(): string {
    const now = Date.now();
    if (now > this.#lastMs) {
      this.#lastMs = now;
      this.#seq = 0;
    }
    this.#seq += 1;
    return `${this.#lastMs}-${this.#seq}`;
  }

  async append(changes: NewChange[]): Promise<void> {
    if (changes.length === 0 || !this.#recording) return;
    const now = Date.now();
    const added = changes.map((c) => ({ ...c, id: this.#nextId() }));
    for (const c of added) {
      this.#entries.push(c);
      this.#times.push(now);
    }
    this.#trim(now);
    for (const listener of this.#listeners) listener(added);
  }

  #trim(now: number): void {
    const end = this.#entries.length;
    let start = Math.max(this.#start, end - this.retention.events);
    while (start < end && now - this.#times[start] > this.retention.ms) start++;
    if (start === this.#start) return;
    this.#floor = this.#entries[start - 1].id;
    this.#start = start;
    if (start > 1024 && start * 2 > end) {
      this.#entries = this.#entries.slice(start);
      this.#times = this.#times.slice(start);
      this.#start = 0;
    }
  }

  async since(id: string): Promise<Change[] | null> {
    this.#record();
    this.#trim(Date.now());
    if (compareIds(id, this.#floor) < 0 || compareIds(id, await this.head()) > 0) return null;
    // Entries are in id order: binary search for the first one after `id`.
    let lo = this.#start;
    let hi = this.#entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareIds(this.#entries[mid].id, id) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return this.#entries.slice(lo);
  }

  async head(): Promise<string> {
    this.#record();
    return this.#entries.length > this.#start ? this.#entries[this.#entries.length - 1].id : this.#floor;
  }

  listen(listener: (changes: Change[]) => void): void {
    this.#listeners.push(listener);
  }

  async close(): Promise<void> {
    this.#listeners.length = 0;
  }
}
