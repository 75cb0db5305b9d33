/** The admission gate behind the pressure limiter (PRESSURE_ADMISSION_*): at most `concurrency` requests are worked
 * on at once; the next `queue` wait in line (first come, first served) for at most `maxWaitMs`; anything beyond is
 * refused at once. A refused or timed-out request costs the caller a 503, never a wait for a database connection.
 *
 * Why this and not utilisation: a process whose event loop is busy but keeps up is healthy, and shedding it only
 * turns work it would have done into retries. What overload really looks like is work queueing, so the gate sheds
 * on the queue: its length and the time spent in it (the wait budget). The concurrency matches the database pool,
 * so an admitted request does not then wait for a connection (see PressureConfig).
 *
 * Refused at once, rather than after waiting out the budget: a request that finds the queue full, or whose
 * expected wait is over the budget. Not earlier: clients that retry a 503 at once (a load generator, a naive
 * retry loop) turn every early refusal into another request, and answering those starves the line (measured on
 * the embedded engine with refusals at half the budget: a 500-connection flood ran at 87% of the normal rate in a
 * run without refusals, and at 37%, with 95,000 503s in 20 s, in one where they began). The expected wait is the number waiting times the mean interval
 * between two admissions from the queue over the last WINDOW admissions, leaving out the longest eighth (one
 * garbage collection, a route group's first import or the machine pausing the process is not a rate); it is
 * measured afresh in each spell during which the queue stays non-empty (an idle spell, or what the last burst
 * looked like, does not count) and trusted after MIN_SAMPLES intervals. Until then the budget's timer decides.
 *
 * Pure bookkeeping, no I/O: one timer per waiting request, cleared when it is admitted. */

export interface AdmissionLimits {
  /** Requests worked on at once (>= 1). */
  concurrency: number;
  /** Requests that may wait for a slot (0 = none wait). */
  queue: number;
  /** How long a request may wait for a slot before it is refused. */
  maxWaitMs: number;
}

/** Intervals kept: the rate is that of the last WINDOW admissions from the queue. */
const WINDOW = 32;
/** Intervals measured in the current spell before the expected wait refuses anyone. */
const MIN_SAMPLES = 20;

interface Waiter {
  admit: (admitted: boolean) => void;
  timer: NodeJS.Timeout;
  settled: boolean;
}

export class AdmissionGate {
  readonly limits: Readonly<AdmissionLimits>;
  #active = 0;
  #waiting = 0;
  /** FIFO with a moving head; entries that timed out stay until they reach the head (settled = true). */
  #queue: Waiter[] = [];
  #head = 0;
  /** performance.now() of the last admission from the queue while it stayed non-empty; null after it emptied. */
  #lastHandoff: number | null = null;
  /** The last WINDOW intervals (ms) between two admissions from the queue in the current spell, how many were
   * measured, and their mean without the longest eighth. */
  readonly #intervals = new Float64Array(WINDOW);
  #samples = 0;
  #handoffMs = 0;

  constructor(limits: AdmissionLimits) {
    this.limits = { concurrency: Math.max(1, limits.concurrency), queue: Math.max(0, limits.queue), maxWaitMs: Math.max(0, limits.maxWaitMs) };
  }

  /** Requests holding a slot. */
  get active(): number {
    return this.#active;
  }

  /** Requests waiting for one. */
  get waiting(): number {
    return this.#waiting;
  }

  /** The expected wait of the next request to queue, in ms (null until the current spell has MIN_SAMPLES). */
  expectedWaitMs(): number | null {
    return this.#samples < MIN_SAMPLES ? null : (this.#waiting + 1) * this.#handoffMs;
  }

  /** true: admitted now; false: refused now (queue full, or the expected wait over the budget); a promise: queued,
   * resolving true once admitted or false when the wait budget is spent. Each admission is paired with a leave(). */
  enter(): boolean | Promise<boolean> {
    if (this.#active < this.limits.concurrency && this.#waiting === 0) {
      this.#active++;
      return true;
    }
    if (this.#waiting >= this.limits.queue || this.limits.maxWaitMs === 0) return false;
    const expected = this.expectedWaitMs();
    if (expected !== null && expected > this.limits.maxWaitMs) return false;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        settled: false,
        admit: resolve,
        timer: setTimeout(() => {
          waiter.settled = true;
          this.#waiting--;
          if (this.#waiting === 0) this.#endSpell();
          resolve(false);
        }, this.limits.maxWaitMs),
      };
      this.#queue.push(waiter);
      this.#waiting++;
    });
  }

  /** Gives a slot back: straight to the longest-waiting request if there is one. */
  leave(): void {
    const next = this.#next();
    if (!next) {
      this.#active = Math.max(0, this.#active - 1);
      return;
    }
    const now = performance.now();
    if (this.#lastHandoff !== null) this.#measure(now - this.#lastHandoff);
    this.#lastHandoff = now;
    if (this.#waiting === 1) this.#endSpell();
    // The slot passes on, so the count never dips while others wait.
    clearTimeout(next.timer);
    next.settled = true;
    this.#waiting--;
    next.admit(true);
  }

  #measure(intervalMs: number): void {
    this.#intervals[this.#samples % WINDOW] = intervalMs;
    this.#samples++;
    if (this.#samples < MIN_SAMPLES) return;
    const kept = this.#intervals.slice(0, Math.min(this.#samples, WINDOW)).sort();
    const n = kept.length - Math.floor(kept.length / 8);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += kept[i];
    this.#handoffMs = sum / n;
  }

  /** The queue is empty: the next spell measures afresh. */
  #endSpell(): void {
    this.#lastHandoff = null;
    this.#handoffMs = 0;
    this.#samples = 0;
  }

  #next(): Waiter | null {
    while (this.#head < this.#queue.length) {
      const waiter = this.#queue[this.#head++];
      if (!waiter.settled) {
        this.#compact();
        return waiter;
      }
    }
    this.#queue = [];
    this.#head = 0;
    return null;
  }

  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}
