import { useEffect, useState } from 'react';

/** `value` once it has stopped changing for `ms` milliseconds. */
export function useDebounced<T>(value: T, ms: number, same: (a: T, b: T) => boolean = Object.is): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (same(value, settled)) return;
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value, ms]);
  return settled;
}
