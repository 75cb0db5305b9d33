/** Work that must wait until a transaction has committed (action events): queued on the transaction, run once the
 * outermost transaction commits, dropped when it rolls back. Outside a transaction it runs at once: the statement
 * that preceded it was atomic on its own and has completed. */
import type { Transaction } from 'kysely';

type Callback = () => void;

const pending = new WeakMap<Transaction<any>, Callback[]>();

export function openCommitQueue(trx: Transaction<any>): Callback[] {
  const list: Callback[] = [];
  pending.set(trx, list);
  return list;
}

export function runCommitQueue(list: Callback[]): void {
  for (const fn of list) {
    try { fn(); } catch (err) { console.error('after-commit callback failed:', err); }
  }
}

/** Runs fn after `ex` commits (ex a transaction opened by inTransaction), or at once when ex is no transaction. */
export function afterCommit(ex: { isTransaction: boolean }, fn: Callback): void {
  const list = ex.isTransaction ? pending.get(ex as Transaction<any>) : undefined;
  if (list) list.push(fn);
  else fn();
}
