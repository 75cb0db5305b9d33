/** The common case, a single row with no nested writes, as ONE statement: the row write, its activity
 * and its revision chained through data-modifying CTEs. One statement is atomic on its own, so this
 * needs no explicit transaction (saves BEGIN, the activity flush and COMMIT round trips). */
import type { ServiceContext } from '../../context.ts';
import { ident, PREPARE_MARK, run } from '../../db/database.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import type { ActivityAction } from './activity.ts';
import type { PreparedPayload } from './payload.ts';
import { keyFromRow, redactDelta, snapshotSql } from './sql.ts';
import type { Payload, PrimaryKey } from './types.ts';

export function isFlat(prepared: PreparedPayload): boolean {
  return prepared.toOne.length === 0 && prepared.toMany.length === 0;
}

/** `write` is an insert/update/delete on `<table> as _row` without a returning clause. */
export async function writeWithActivity(
  ctx: ServiceContext, collection: CollectionOverview, action: ActivityAction,
  write: { sql: string; params: unknown[] }, delta: Payload | null, version: string | null,
): Promise<PrimaryKey[]> {
  const pk = ident(collection.primary!);
  const mode = collection.accountability;
  let sql: string;
  const params = [...write.params];
  if (!mode) {
    sql = `${write.sql} returning _row.${pk} as pk`;
  } else {
    const a = ctx.accountability;
    const p = params.push(action, a.user, a.ip?.slice(0, 50) ?? null, a.userAgent, a.origin?.slice(0, 255) ?? null, collection.collection, a.impersonatedBy ?? null) - 7;
    sql = `with _w as (${write.sql} returning _row.*),
      _a as (insert into svc_activity (action, "user", ip, user_agent, origin, collection, item, impersonated_by)
        select $${p + 1}, $${p + 2}::uuid, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6}, _w.${pk}::text, $${p + 7}::uuid from _w returning id, item)`;
    if (mode === 'all' && action !== 'delete') {
      params.push(JSON.stringify(redactDelta(collection, delta) ?? {}), version);
      sql += `, _r as (insert into svc_revisions (activity, collection, item, data, delta, version)
        select _a.id, $${p + 6}, _a.item, ${snapshotSql(collection, '_w')}, $${p + 8}::json, $${p + 9}::uuid from _a join _w on _w.${pk}::text = _a.item)`;
    }
    sql += ` select _w.${pk} as pk from _w`;
  }
  const rows = await run<{ pk: unknown }>(ctx.db, PREPARE_MARK + sql, params);
  return rows.map((r) => keyFromRow(r.pk));
}
