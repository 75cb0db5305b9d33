/** Saves made one after another (quick keyboard moves send their orders in the order made), each shown at once
 * through an optimistic change of the cached data, with the schema read again after each save and the last error
 * kept for the screen to show. */
import { useRef, useState } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useRefreshSchema } from './api.ts';

export function useSaveQueue(queryKey: QueryKey): {
  /** Applies `optimistic` to the cached data now and queues `save`. */
  enqueue(optimistic: () => void, save: () => Promise<unknown>): void; error: unknown; clearError(): void; busy: boolean;
} {
  const queryClient = useQueryClient();
  const chain = useRef<Promise<void>>(Promise.resolve());
  const pending = useRef(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const refresh = useRefreshSchema();
  const enqueue = (optimistic: () => void, save: () => Promise<unknown>): void => {
    optimistic();
    // A read still in flight (the refresh after the previous save) holds the order from before this change and would
    // overwrite it, so the next key press would start from a stale row order: cancel it (the cache goes back to what
    // it held when that read began) and apply this change again on top.
    void queryClient.cancelQueries({ queryKey }).then(optimistic);
    pending.current += 1;
    setBusy(true);
    setError(null);
    chain.current = chain.current.then(async () => {
      try {
        await save();
      } catch (err) {
        setError(err);
      } finally {
        pending.current -= 1;
        // The server's order replaces the optimistic one once the last save is in (or one failed).
        if (pending.current === 0) {
          await refresh().catch(() => undefined);
          setBusy(false);
        }
      }
    });
  };
  return { enqueue, error, clearError: () => setError(null), busy };
}
