/** Wakes notify workers after a commit that added due logs. The queue only wakes (DESIGN.md > Durable jobs): a lost
 * wake-up costs at most one scan interval, a duplicate one an empty claim. */
import { randomUUID } from 'node:crypto';
import { afterCommit } from '../db/after-commit.ts';
import type { Executor } from '../db/database.ts';
import type { Queue } from '../queue/queue.ts';

export const WAKE_MESSAGE = 'notify.wake';

export function sendWake(queue: Queue): void {
  void queue.send({ id: randomUUID(), type: WAKE_MESSAGE, body: {} }).catch((err: unknown) => {
    console.error('notify: could not send a wake-up (the periodic scan will find the logs):', (err as Error).message);
  });
}

/** After `db`'s transaction commits (at once outside one). */
export function wakeAfterCommit(db: Executor, queue: Queue): void {
  afterCommit(db, () => sendWake(queue));
}
