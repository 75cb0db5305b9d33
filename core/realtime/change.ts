/** A committed item change as realtime subscribers learn of it (docs/realtime.md): which rows of which collection
 * were created, updated or deleted. The rows themselves are read per subscriber group when the change is fanned
 * out (core/realtime/hub.ts), so a change carries keys only. */

export type ChangeAction = 'create' | 'update' | 'delete';

export interface Change {
  /** The change's place in the log: `{ms}-{seq}`, increasing (a Redis stream id, or the in-process log's own). */
  id: string;
  /** The action event it came from; the same change may be appended twice (the writer's tap, then the relay's
   * backstop), and readers drop the second by this id. */
  event: string;
  collection: string;
  action: ChangeAction;
  keys: (string | number)[];
}

export type NewChange = Omit<Change, 'id'>;

const ID = /^(\d{1,15})-(\d{1,15})$/;

export function isChangeId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}

/** Orders two change ids (negative, zero, positive). */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-');
  const [bm, bs] = b.split('-');
  return Number(am) - Number(bm) || Number(as) - Number(bs);
}
