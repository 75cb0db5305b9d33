/** A FIFO lock: PGlite has a single connection, so whoever holds it owns the session. */
export class Mutex {
  #locked = false;
  #waiters: (() => void)[] = [];

  async acquire(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}
