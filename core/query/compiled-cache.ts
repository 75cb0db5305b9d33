/** A bounded LRU of compiled reads. A hit skips parse, plan and compile: the per-request cost of a
 * repeated query shape becomes one map lookup. Keys carry the schema version (which also moves on every
 * permission change) and the caller, because permission filters and $CURRENT_* values differ per caller;
 * statements that depend on the clock ($NOW) are never stored. */
import type { CompiledRead } from './compile-select.ts';

export class CompiledCache {
  readonly #entries = new Map<string, CompiledRead>();

  constructor(private readonly capacity = 1000) {}

  get(key: string): CompiledRead | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: CompiledRead): void {
    if (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, value);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** True when anything in the value mentions the clock variable. */
export function mentionsNow(value: unknown): boolean {
  return JSON.stringify(value ?? null).includes('$NOW');
}
