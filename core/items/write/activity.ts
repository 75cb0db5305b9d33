/** Activity and revisions (SPEC.md > svc_activity, svc_revisions): every row a write touches, nested ones
 * included, is recorded in memory while the write runs and flushed by one statement before commit. */
import type { Transaction } from 'kysely';
import type { Accountability } from '../../access/accountability.ts';
import { PREPARE_MARK, run } from '../../db/database.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { redactDelta } from './sql.ts';
import type { Payload, PrimaryKey } from './types.ts';

export type ActivityAction = 'create' | 'update' | 'delete';

interface Entry {
  action: ActivityAction;
  collection: string;
  item: string;
  /** Row snapshot after the change as JSON text; null = no revision. */
  data: string | null;
  delta: string | null;
  /** Index of the entry whose revision is this one's parent (Directus links nested revisions to the
   * revision of the write that caused them); undefined until the enclosing write records itself. */
  parent: number | null | undefined;
}

export interface RecordedRow {
  key: PrimaryKey;
  /** row_to_json text, present when the collection keeps revisions. */
  snapshot: string | null;
}

export class ActivityLog {
  readonly #entries: Entry[] = [];

  /** Position to pass to record(): entries added after it are the nested writes of the caller. */
  mark(): number {
    return this.#entries.length;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Records rows written in one collection; nested entries since `mark` become children of the first. */
  record(collection: CollectionOverview, action: ActivityAction, rows: RecordedRow[], delta: Payload | null, mark: number): void {
    const mode = collection.accountability;
    let parent: number | null = null;
    if (mode) {
      const revision = mode === 'all' && action !== 'delete';
      const deltaText = revision && delta ? JSON.stringify(redactDelta(collection, delta)) : null;
      for (const row of rows) {
        const index = this.#entries.push({
          action, collection: collection.collection, item: String(row.key),
          data: revision ? (row.snapshot ?? 'null') : null, delta: deltaText, parent: undefined,
        }) - 1;
        if (parent === null && revision) parent = index;
      }
    }
    const end = this.#entries.length - (mode ? rows.length : 0);
    for (let i = mark; i < end; i++) {
      if (this.#entries[i].parent === undefined) this.#entries[i].parent = parent;
    }
  }

  /** The records as one JSON array; snapshots are spliced in as the database returned them, so big
   * integers and numerics keep their exact text. */
  toJson(): string {
    const parts: string[] = [];
    for (let i = 0; i < this.#entries.length; i++) {
      const e = this.#entries[i];
      parts.push(`{"i":${i},"action":${JSON.stringify(e.action)},"collection":${JSON.stringify(e.collection)},`
        + `"item":${JSON.stringify(e.item)},"rev":${e.data !== null},"data":${e.data ?? 'null'},`
        + `"delta":${e.delta ?? 'null'},"p":${e.parent ?? 'null'}}`);
    }
    return `[${parts.join(',')}]`;
  }
}

// Ids are drawn up front so revisions (and their parent links) can be inserted by the same statement.
const FLUSH_SQL = `
with input as materialized (
  select x.i, x.action, x.collection, x.item, x.data, x.delta, x.p,
    nextval(pg_get_serial_sequence('svc_activity', 'id')) as aid,
    case when x.rev then nextval(pg_get_serial_sequence('svc_revisions', 'id')) end as rid
  from json_to_recordset($1::json) as x(i int, action text, collection text, item text, rev boolean, data json, delta json, p int)
), act as (
  insert into svc_activity (id, action, "user", ip, user_agent, origin, collection, item, impersonated_by)
  select aid, action, $2::uuid, $3, $4, $5, collection, item, $7::uuid from input order by i
)
insert into svc_revisions (id, activity, collection, item, data, delta, parent, version)
select c.rid, c.aid, c.collection, c.item, c.data, c.delta, par.rid, $6::uuid
from input c left join input par on par.i = c.p
where c.rid is not null`;

export async function flushActivity(trx: Transaction<any>, log: ActivityLog, accountability: Accountability, version: string | null): Promise<void> {
  if (log.size === 0) return;
  await run(trx, PREPARE_MARK + FLUSH_SQL, [
    log.toJson(), accountability.user, accountability.ip?.slice(0, 50) ?? null, accountability.userAgent,
    accountability.origin?.slice(0, 255) ?? null, version, accountability.impersonatedBy ?? null,
  ]);
}
