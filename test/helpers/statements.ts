/** The statements a piece of work sends to the database (core/db/statement-observers.ts), for tests that hold a
 * code path to a number of round trips. */
import { observeStatements } from '../../core/db/statement-observers.ts';

/** Statements naming one of `tables` sent while fn runs (background work of the app, such as a schema reload, is
 * left out by the table filter). */
export async function statementsOn(tables: readonly string[], fn: () => Promise<unknown>): Promise<string[]> {
  const pattern = new RegExp(`"?\\b(${tables.join('|')})\\b`);
  const seen: string[] = [];
  const stop = observeStatements((sql) => { if (pattern.test(sql)) seen.push(sql); });
  try {
    await fn();
  } finally {
    stop();
  }
  return seen;
}
