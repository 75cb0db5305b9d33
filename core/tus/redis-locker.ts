/** A tus Locker over Redis, so several container processes can serve one upload: a lock is `SET key token NX PX`,
 * kept alive while held and released with a compare-and-delete. A request that finds the lock taken asks the
 * holder to let go (a release request published on a channel every process listens to; the holder's tus request
 * then drains and ends, as @tus/server's MemoryLocker does in one process), retries, and gives up with 423 Locked
 * after `acquireTimeoutMs`. A holder that died leaves a lock that expires after `ttlMs`. */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Lock, Locker, RequestRelease } from '@tus/utils';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

export interface RedisLockerOptions {
  /** Key prefix, e.g. `svc:` or `svc:{namespace}:`. */
  prefix: string;
  ttlMs?: number;
  acquireTimeoutMs?: number;
  retryMs?: number;
}

/** The tus error shape @tus/server answers with. */
export const LOCKED = { status_code: 423, body: 'Upload is locked by another request\n' };

export class RedisLocker implements Locker {
  readonly ttlMs: number;
  readonly acquireTimeoutMs: number;
  readonly retryMs: number;
  readonly #prefix: string;
  readonly #channel: string;
  /** Locks held by this process: id -> ask the holding request to release. */
  readonly held = new Map<string, RequestRelease>();
  #subscriber: Redis | null = null;
  #subscribed: Promise<unknown> | null = null;

  constructor(readonly client: Redis, opts: RedisLockerOptions) {
    this.#prefix = `${opts.prefix}tus:lock:`;
    this.#channel = `${opts.prefix}tus:release`;
    this.ttlMs = opts.ttlMs ?? 15_000;
    this.acquireTimeoutMs = opts.acquireTimeoutMs ?? 10_000;
    this.retryMs = opts.retryMs ?? 50;
  }

  key(id: string): string {
    return this.#prefix + id;
  }

  /** Subscribes (once) to release requests from other processes. */
  listen(): Promise<unknown> {
    if (!this.#subscribed) {
      const sub = this.client.duplicate({ connectionName: `${this.#channel}:sub`, enableOfflineQueue: true });
      sub.on('error', () => {});
      sub.on('message', (_channel: string, id: string) => { void this.held.get(id)?.(); });
      this.#subscriber = sub;
      this.#subscribed = sub.subscribe(this.#channel).catch(() => { this.#subscribed = null; });
    }
    return this.#subscribed;
  }

  requestRelease(id: string): Promise<unknown> {
    return this.client.publish(this.#channel, id).catch(() => 0);
  }

  newLock(id: string): Lock {
    return new RedisLock(this, id);
  }

  async close(): Promise<void> {
    const sub = this.#subscriber;
    this.#subscriber = null;
    this.#subscribed = null;
    if (sub) sub.disconnect();
  }
}

class RedisLock implements Lock {
  readonly #token = randomBytes(16).toString('hex');
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly locker: RedisLocker, private readonly id: string) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const { locker, id } = this;
    await locker.listen();
    const key = locker.key(id);
    const deadline = Date.now() + locker.acquireTimeoutMs;
    let asked = false;
    for (;;) {
      if (signal.aborted) throw LOCKED;
      const ok = await locker.client.set(key, this.#token, 'PX', locker.ttlMs, 'NX');
      if (ok === 'OK') break;
      // Ask the holder (in this process or another) to finish up; again now and then, in case it missed it.
      if (!asked || Date.now() % 1000 < locker.retryMs) await locker.requestRelease(id);
      asked = true;
      if (Date.now() >= deadline) throw LOCKED;
      await new Promise((r) => setTimeout(r, locker.retryMs));
    }
    locker.held.set(id, requestRelease);
    this.#timer = setInterval(() => {
      void locker.client.eval(EXTEND, 1, key, this.#token, String(locker.ttlMs)).catch(() => {});
    }, Math.max(1000, Math.floor(locker.ttlMs / 3)));
    this.#timer.unref();
  }

  async unlock(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (this.locker.held.get(this.id)) this.locker.held.delete(this.id);
    await this.locker.client.eval(RELEASE, 1, this.locker.key(this.id), this.#token);
  }
}
