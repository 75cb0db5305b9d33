/** The notify worker (DESIGN.md > Durable jobs; SPEC.md > Notification log status). It claims due logs in small
 * batches (core/notify/outbox/store.ts), keeps at most `concurrency` sends in flight (FILES_MAX_UPLOAD_CONCURRENCY,
 * as SPEC.md > Limits says), and records each outcome: sent (sent_at, provider_message_id, provider_response), or
 * back to pending with attempts+1 and an exponential backoff, or failed after NOTIFY_MAX_ATTEMPTS. It runs when woken
 * (a `notify.wake` queue message after a trigger's commit), after each finished send while work remains, and on a
 * periodic scan (NOTIFY_SCAN_INTERVAL) that also takes back logs whose worker died mid-send (NOTIFY_LEASE).
 *
 * Claims run ahead of the sends (up to twice the concurrency is held, a new claim when fewer than `concurrency` wait),
 * and sends that finish while an outcome is being written are recorded together in one statement: per message the
 * database sees a fraction of a claim and of an update, not one of each.
 *
 * Delivery is at least once: a log is sent twice only when a worker dies (or loses the database) after the provider
 * accepted the message and before the outcome was recorded; the lease then gives it to another worker. SMTP resends
 * carry the same Message-ID (the log id), so mail stores that deduplicate by Message-ID keep one copy. */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.ts';
import { decryptSecret } from '../../crypto/secret-box.ts';
import type { Executor } from '../../db/database.ts';
import { parseJsonColumn } from '../providers-store.ts';
import { SenderPool } from './senders.ts';
import { claimDue, markFailed, markSentMany, reclaimExpired, releaseClaims, type ClaimedLog, type SentRecord } from './store.ts';
import { attachEarlyEvents } from '../webhooks/index.ts';

export interface WorkerOptions {
  concurrency?: number;
  /** The time the worker compares scheduled_at and next_attempt_at with (tests move it). */
  clock?: () => Date;
  log?: (line: string) => void;
}

const list = (v: unknown): string[] => {
  const parsed = parseJsonColumn(v);
  return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
};

export class NotifyWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly concurrency: number;
  readonly #db: Executor;
  readonly #config: Config;
  readonly #senders: SenderPool;
  readonly #clock: () => Date;
  readonly #log: (line: string) => void;
  readonly #inflight = new Set<Promise<void>>();
  /** Claimed, not yet being sent. */
  readonly #ready: ClaimedLog[] = [];
  /** Sent, outcome not yet written. */
  #sentBuffer: { record: SentRecord; done: () => void; fail: (err: unknown) => void }[] = [];
  #flushing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #pumping: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  /** Sends finished since start (tests and the bench). */
  sent = 0;
  failed = 0;

  constructor(db: Executor, config: Config, opts: WorkerOptions = {}) {
    this.#db = db;
    this.#config = config;
    this.concurrency = Math.max(1, opts.concurrency ?? config.files.maxUploadConcurrency);
    this.#senders = new SenderPool(db, config, this.concurrency);
    this.#clock = opts.clock ?? (() => new Date());
    this.#log = opts.log ?? ((line) => { if (config.logLevel !== 'silent' && config.logLevel !== 'fatal') console.error(line); });
  }

  get running(): boolean { return this.#timer !== null; }

  /** Starts the periodic scan and runs one at once (logs left over from before a restart). Idempotent. */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => this.scan(), this.#config.notify.scanIntervalMs);
    this.#timer.unref();
    this.scan();
  }

  /** A `notify.wake` message: look for due logs now. */
  wake(): void { this.#pump(); }

  /** The periodic scan: expired leases back to pending, then claim. */
  scan(): void {
    if (this.#stopped) return;
    const cutoff = new Date(this.#clock().getTime() - this.#config.notify.leaseMs);
    reclaimExpired(this.#db, cutoff, this.#config.notify.maxAttempts)
      .then((n) => { if (n) this.#log(`notify: took back ${n} log(s) whose worker stopped mid-send`); })
      .catch((err: unknown) => { if (!this.#stopped) this.#log(`notify: lease scan failed: ${(err as Error).message}`); })
      .finally(() => this.#pump());
  }

  /** Sends everything due at `now` (expired leases included) and resolves when done; returns how many logs it
   * processed. For tests and one-off runs: independent of the timer. */
  async runOnce(now: Date = this.#clock()): Promise<number> {
    await reclaimExpired(this.#db, new Date(now.getTime() - this.#config.notify.leaseMs), this.#config.notify.maxAttempts);
    let n = 0;
    for (;;) {
      const rows = await claimDue(this.#db, now, this.concurrency, this.id);
      if (rows.length === 0) return n;
      n += rows.length;
      await Promise.all(rows.map((r) => this.#deliver(r, now)));
    }
  }

  /** Resolves when nothing is in flight (tests). */
  async idle(): Promise<void> {
    while (this.#pumping || this.#inflight.size || this.#flushing || this.#sentBuffer.length) {
      await Promise.allSettled([this.#pumping, ...this.#inflight, this.#flushing]);
      if (!this.#flushing && this.#sentBuffer.length) this.#flush();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    // Prefetched logs that will not be sent now go back to pending for the next worker.
    const unsent = this.#ready.splice(0);
    await this.idle();
    await releaseClaims(this.#db, unsent, this.id).catch((err: unknown) => this.#log(`notify: could not release claims: ${(err as Error).message}`));
    this.#senders.close();
  }

  #pump(): void {
    if (this.#stopped) return;
    this.#fill();
    if (this.#pumping) { this.#again = true; return; }
    if (this.#ready.length >= this.concurrency) return;
    this.#pumping = (async () => {
      try {
        do {
          this.#again = false;
          if (this.#ready.length >= this.concurrency) break;
          const want = this.concurrency * 2 - this.#ready.length;
          const rows = await claimDue(this.#db, this.#clock(), want, this.id);
          if (this.#stopped) { await releaseClaims(this.#db, rows, this.id); break; }
          this.#ready.push(...rows);
          this.#fill();
          if (rows.length === want) this.#again = true;
        } while (this.#again && !this.#stopped);
      } catch (err) {
        if (!this.#stopped) this.#log(`notify: claim failed: ${(err as Error).message}`);
      } finally {
        this.#pumping = null;
      }
    })();
  }

  /** Starts sends from the claimed logs while there is room. */
  #fill(): void {
    while (!this.#stopped && this.#inflight.size < this.concurrency && this.#ready.length) this.#launch(this.#ready.shift()!);
  }

  #launch(row: ClaimedLog): void {
    const p: Promise<void> = this.#deliver(row, null, false)
      .catch((err: unknown) => { this.#log(`notify: log ${row.id}: could not record the outcome: ${(err as Error).message}`); })
      .finally(() => { this.#inflight.delete(p); this.#pump(); });
    this.#inflight.add(p);
  }

  /** Queues a sent outcome for the next batched write; resolves once written. */
  #recordSent(record: SentRecord): Promise<void> {
    const done = new Promise<void>((resolve, reject) => this.#sentBuffer.push({ record, done: resolve, fail: reject }));
    if (!this.#flushing) this.#flush();
    return done;
  }

  #flush(): void {
    const batch = this.#sentBuffer;
    this.#sentBuffer = [];
    if (batch.length === 0) return;
    this.#flushing = (async () => {
      try {
        await markSentMany(this.#db, batch.map((b) => b.record), this.id);
        for (const b of batch) b.done();
        // Delivery reports that came in before the sent outcome was written wait unlinked: link and apply them.
        await attachEarlyEvents(this.#db, batch.map((b) => b.record.log.id)).catch((err: unknown) => {
          console.error('notify: could not link early delivery reports:', (err as Error).message);
        });
      } catch (err) {
        for (const b of batch) b.fail(err);
      } finally {
        this.#flushing = null;
        if (this.#sentBuffer.length) this.#flush();
      }
    })();
  }

  /** Sends one claimed log and records the outcome (`waitForRecord` false: a send slot is freed as soon as the
   * provider answered; the sent outcome is written with the next batch, tracked by idle()). */
  async #deliver(row: ClaimedLog, now: Date | null, waitForRecord = true): Promise<void> {
    let outcome: { providerId: number | null; messageId: string | null; response: Record<string, unknown> };
    try {
      const to = list(row.recipients);
      if (to.length === 0) throw new Error('The log has no recipients.');
      const { sender, providerId } = await this.#senders.get(row.channel, row.provider_id);
      // Direct mail goes out as sealed (with its token); the stored content_rendered has it redacted.
      const content = row.content_sealed ? decryptSecret(row.content_sealed, this.#config.secret) : row.content_rendered ?? '';
      const result = await sender.send({
        to, cc: list(row.cc), bcc: list(row.bcc), subject: row.subject_rendered ?? '', content, reference: `notify-${row.id}`,
      });
      outcome = { providerId, messageId: result.messageId, response: result.response };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const { maxAttempts, retryDelayMs, retryMaxDelayMs } = this.#config.notify;
      const next = row.attempts >= maxAttempts ? null
        : new Date((now ?? this.#clock()).getTime() + Math.min(retryMaxDelayMs, retryDelayMs * 2 ** (row.attempts - 1)));
      this.failed += 1;
      await markFailed(this.#db, row, this.id, message, next);
      return;
    }
    this.sent += 1;
    const recorded = this.#recordSent({ log: row, ...outcome });
    if (waitForRecord) await recorded;
    else recorded.catch((err: unknown) => this.#log(`notify: log ${row.id}: sent, but the outcome was not recorded (the lease will resend it): ${(err as Error).message}`));
  }
}
