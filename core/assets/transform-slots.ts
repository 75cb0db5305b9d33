/** ASSETS_TRANSFORM_MAX_CONCURRENT: a process-wide count of transforms running now. Over the limit a request is
 * refused at once (503 SERVICE_UNAVAILABLE with Retry-After) rather than queued, so a burst of uncached
 * transforms cannot pile up memory or starve the event loop. Cached outputs never take a slot. */

let running = 0;

/** A release function, or null when every slot is taken. */
export function tryAcquireTransformSlot(max: number): (() => void) | null {
  if (running >= max) return null;
  running++;
  let released = false;
  return () => {
    if (!released) {
      released = true;
      running--;
    }
  };
}

export function runningTransforms(): number {
  return running;
}
