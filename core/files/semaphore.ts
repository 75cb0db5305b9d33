/** FILES_MAX_UPLOAD_CONCURRENCY: a process-wide counting semaphore around storing uploads. Callers over the
 * limit wait in line (first come, first served); none is refused. */

export class Semaphore {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly max: number) {}

  get active(): number {
    return this.#active;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#active >= this.max) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so the count never dips below the limit while others wait.
      if (next) next();
      else this.#active--;
    }
  }
}

const byLimit = new Map<number, Semaphore>();

/** The process's upload semaphore for a configured limit (one per distinct limit, so tests may differ). */
export function uploadSlots(max: number): Semaphore {
  let s = byLimit.get(max);
  if (!s) {
    s = new Semaphore(max);
    byLimit.set(max, s);
  }
  return s;
}
