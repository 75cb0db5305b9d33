/** Work bound to the commit of a transaction opened by inTransaction (core/db/database.ts):
 * - before commit: async work that must be part of the transaction and happen once, however many statements
 *   asked for it (the action event outbox writes all the events of a transaction in one statement);
 * - after commit: work that must wait until the change is durable (sending the events), dropped when the
 *   transaction rolls back.
 * Outside such a transaction `beforeCommit` says so (false) and `afterCommit` runs at once: the statement that
 * preceded it was atomic on its own and has completed. */
import type { Transaction } from 'kysely';

type Callback = () => void;

export interface CommitHooks {
  before: (() => Promise<void>)[];
  after: Callback[];
}

const pending = new WeakMap<Transaction<any>, CommitHooks>();

export function openCommitQueue(trx: Transaction<any>): CommitHooks {
  const hooks: CommitHooks = { before: [], after: [] };
  pending.set(trx, hooks);
  return hooks;
}

/** Runs the before-commit work in order, inside the transaction; a failure fails (rolls back) the transaction. */
export async function runBeforeCommit(hooks: CommitHooks): Promise<void> {
  for (let i = 0; i < hooks.before.length; i++) await hooks.before[i]();
}

export function runCommitQueue(hooks: CommitHooks): void {
  for (const fn of hooks.after) {
    try { fn(); } catch (err) { console.error('after-commit callback failed:', err); }
  }
}

/** Runs fn inside `ex` just before it commits; false (fn not scheduled) when ex is no transaction opened by
 * inTransaction. */
export function beforeCommit(ex: { isTransaction: boolean }, fn: () => Promise<void>): boolean {
  const hooks = ex.isTransaction ? pending.get(ex as Transaction<any>) : undefined;
  if (!hooks) return false;
  hooks.before.push(fn);
  return true;
}

/** Runs fn after `ex` commits (ex a transaction opened by inTransaction), or at once when ex is no transaction. */
export function afterCommit(ex: { isTransaction: boolean }, fn: Callback): void {
  const hooks = ex.isTransaction ? pending.get(ex as Transaction<any>) : undefined;
  if (hooks) hooks.after.push(fn);
  else fn();
}
