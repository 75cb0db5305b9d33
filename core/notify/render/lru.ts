/** A bounded least-recently-used map (Map keeps insertion order: a hit is moved to the end, the oldest goes first). */
export class Lru<V> {
  readonly #map = new Map<string, V>();
  constructor(readonly max: number) {}

  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) { this.#map.delete(key); this.#map.set(key, v); }
    return v;
  }

  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value as string);
  }

  get size(): number { return this.#map.size; }
}
