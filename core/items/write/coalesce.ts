/** Natural batching of concurrent single-item writes. Writes of one kind (same collection, action, set of
 * columns, caller identity and version) share a lane. While MAX_IN_FLIGHT statements of a lane run, further
 * writes wait; when one ends, everything waiting goes as ONE multi-row statement. Under concurrent load one
 * parse, plan and commit then serve many requests; on an idle server a write runs at once, exactly as alone.
 * The multi-row statement is atomic: when it fails, each of its writes runs again on its own, so every request
 * gets the key or the error it would have had alone, and nothing is half-written. Writes inside a transaction
 * never take part (their statements must run on that transaction, in order). */
import type { Executor } from '../../db/database.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import type { PrimaryKey } from './types.ts';

/** Statements of one lane running at once before writes start to wait: two keep the pool busy while a batch
 * forms behind them. */
const MAX_IN_FLIGHT = 2;
/** Writes per multi-row statement. */
const MAX_ROWS = 100;

export interface LaneWork<T> {
  /** One write on its own. */
  one(item: T): Promise<PrimaryKey>;
  /** Several writes as one statement: per item its key, or the error of that item alone (nothing was written
   * for it). Throws when the statement failed, and then nothing was written. */
  many(items: T[]): Promise<(PrimaryKey | Error)[]>;
  /** Whether item may join the batch being formed (an update's key must not be in it twice). */
  joins?(batch: readonly T[], item: T): boolean;
}

interface Waiter<T> {
  item: T;
  resolve: (key: PrimaryKey) => void;
  reject: (error: unknown) => void;
}

interface Lane<T> {
  running: number;
  waiting: Waiter<T>[];
  work: LaneWork<T>;
}

const lanesOf = new WeakMap<Executor, WeakMap<CollectionOverview, Map<string, Lane<unknown>>>>();

/** Runs `item` in the lane `key` of (db, collection); `work` is used when this call opens the lane. */
export function coalesce<T>(db: Executor, collection: CollectionOverview, key: string, item: T, work: LaneWork<T>): Promise<PrimaryKey> {
  let byCollection = lanesOf.get(db);
  if (!byCollection) lanesOf.set(db, byCollection = new WeakMap());
  let lanes = byCollection.get(collection);
  if (!lanes) byCollection.set(collection, lanes = new Map());
  let lane = lanes.get(key) as Lane<T> | undefined;
  if (!lane) lanes.set(key, lane = { running: 0, waiting: [], work } as Lane<T>);
  if (lane.running < MAX_IN_FLIGHT) {
    lane.running++;
    const own = lane;
    return work.one(item).finally(() => next(lanes, key, own));
  }
  const queued = lane;
  return new Promise<PrimaryKey>((resolve, reject) => { queued.waiting.push({ item, resolve, reject }); });
}

/** A statement of the lane ended: start the next batch, or close the lane's slot. */
function next<T>(lanes: Map<string, Lane<unknown>>, key: string, lane: Lane<T>): void {
  if (lane.waiting.length === 0) {
    lane.running--;
    if (lane.running === 0 && lanes.get(key) === lane) lanes.delete(key);
    return;
  }
  const batch = take(lane);
  void runBatch(lane.work, batch).finally(() => next(lanes, key, lane));
}

function take<T>(lane: Lane<T>): Waiter<T>[] {
  const batch: Waiter<T>[] = [];
  const items: T[] = [];
  const rest: Waiter<T>[] = [];
  for (const w of lane.waiting) {
    if (batch.length < MAX_ROWS && (!lane.work.joins || lane.work.joins(items, w.item))) {
      batch.push(w);
      items.push(w.item);
    } else {
      rest.push(w);
    }
  }
  lane.waiting = rest;
  return batch;
}

async function runBatch<T>(work: LaneWork<T>, batch: Waiter<T>[]): Promise<void> {
  if (batch.length === 1) {
    await work.one(batch[0].item).then(batch[0].resolve, batch[0].reject);
    return;
  }
  let results: (PrimaryKey | Error)[];
  try {
    results = await work.many(batch.map((w) => w.item));
  } catch {
    // The statement wrote nothing: each write again on its own, for its own outcome.
    await Promise.all(batch.map((w) => work.one(w.item).then(w.resolve, w.reject)));
    return;
  }
  batch.forEach((w, i) => {
    const r = results[i];
    if (r instanceof Error) w.reject(r);
    else w.resolve(r);
  });
}
