/** Reads of a collection with a to-many alias through its dedicated endpoint (roles with `policies`,
 * policies with `permissions`): one query-language statement, shaped as the endpoint answers. */
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import type { Query } from '../query/types.ts';
import { canRead, readRecord, readRecords, type RecordData } from './system-records.ts';
import { isUuid } from '../uuid.ts';

/** How a to-many alias reads through its collection's dedicated endpoint (`permissions` on policies,
 * `policies` on roles). The alias is a relation of the schema overview, so the query language filters on it
 * and expands it in the same statement as the rows. Without `fields`, it comes expanded, complete and in
 * `sort` order: each related record, or with `bare` only that field of each (roles' `policies` list policy
 * ids). With `bare`, a plain mention of the alias (or `*`) stands for that list too, while `alias.<field>`
 * answers the related records as Directus does; without it `*` answers their keys, as Directus does. A caller
 * who may not read the related collection gets an empty list. */
export interface ToManyRead {
  alias: string;
  related: string;
  bare: string | null;
  sort: string[];
}

interface ToManyPlan { query: Query; flatten: boolean; empty: boolean; dropKey: boolean }

function planToMany(spec: ToManyRead, query: Query, readable: boolean): ToManyPlan {
  if (query.aggregate || query.groupBy) return { query, flatten: false, empty: false, dropKey: false };
  const { alias } = spec;
  const mine = (f: string): boolean => f === alias || f.startsWith(`${alias}.`);
  const fields = query.fields ?? ['*'];
  const wanted = fields.some((f) => f === '*' || mine(f));
  if (!readable) {
    const rest = fields.filter((f) => !mine(f));
    const dropKey = rest.length === 0;
    return { query: { ...query, fields: dropKey ? ['id'] : rest }, flatten: false, empty: wanted, dropKey };
  }
  const explicit = fields.some((f) => f.startsWith(`${alias}.`));
  const expand = query.fields === undefined || (spec.bare !== null && wanted && !explicit);
  if (!expand) return { query, flatten: false, empty: false, dropKey: false };
  const level = query.deep?.[alias];
  const deep = { ...query.deep, [alias]: { _limit: -1, _sort: spec.sort, ...(typeof level === 'object' && level !== null ? level : {}) } };
  const sub = `${alias}.${spec.bare ?? '*'}`;
  return { query: { ...query, fields: [...fields.filter((f) => f !== alias), sub], deep }, flatten: spec.bare !== null, empty: false, dropKey: false };
}

function finish(spec: ToManyRead, plan: ToManyPlan, rows: RecordData[]): void {
  for (const row of rows) {
    if (plan.flatten) {
      const list = Array.isArray(row[spec.alias]) ? row[spec.alias] as RecordData[] : [];
      row[spec.alias] = list.map((r) => r[spec.bare!]);
    }
    if (plan.empty) row[spec.alias] = [];
    if (plan.dropKey) delete row.id;
  }
}

/** List and single reads of a collection with a to-many alias (see ToManyRead); keys are uuids. */
export function readersWithToMany(collection: string, spec: ToManyRead): {
  list(ctx: ServiceContext, query: Query): Promise<{ data: RecordData[]; meta?: RecordData }>;
  read(ctx: ServiceContext, id: string, query: Query): Promise<RecordData>;
} {
  return {
    async list(ctx, query) {
      const plan = planToMany(spec, query, await canRead(ctx, spec.related));
      const result = await readRecords(ctx, collection, plan.query);
      finish(spec, plan, result.data);
      return result;
    },
    async read(ctx, id, query) {
      if (!isUuid(id)) throw new ForbiddenError();
      const plan = planToMany(spec, query, await canRead(ctx, spec.related));
      const row = await readRecord(ctx, collection, id, plan.query);
      finish(spec, plan, [row]);
      return row;
    },
  };
}
