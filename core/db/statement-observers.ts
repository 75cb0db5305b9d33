/** Listeners told the text of every statement both drivers send (transaction control included): for
 * diagnostics and for tests that hold a code path to a number of round trips. Free when none is set. */
const observers = new Set<(sql: string) => void>();

export function observeStatements(listener: (sql: string) => void): () => void {
  observers.add(listener);
  return () => { observers.delete(listener); };
}

export function noteStatement(sql: string): void {
  if (observers.size === 0) return;
  for (const listener of observers) listener(sql);
}
