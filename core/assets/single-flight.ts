/** Concurrent requests for the same uncached transform share one render (an edge cache miss often arrives as a
 * burst of identical requests): the first renders, the others wait for it and then read the cached output. */

const inflight = new Map<string, Promise<void>>();

export function singleFlight(key: string, render: () => Promise<void>): Promise<void> {
  let running = inflight.get(key);
  if (!running) {
    running = render().finally(() => inflight.delete(key));
    inflight.set(key, running);
  }
  return running;
}
