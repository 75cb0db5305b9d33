/** Reads that reach records about items (svc_revisions, svc_versions): their rows hold other rows' values
 * (`data`, `delta`), so a non-admin sees them under the permissions of the item they are about, wherever the
 * read reaches them (GET /revisions, `fields=revisions.*` from activity, relational filters, counts, GraphQL):
 *
 * - rows: only records of items the caller may read (core/access/item-visibility.ts), as a row scope of the
 *   record collection, so the planner ANDs it in everywhere it applies that collection's row filter;
 * - values: the payload fields are cut to the item collection's readable fields (nested write shapes
 *   included), after the statement ran; the planner selects the record's `collection` under a marker name
 *   for that, and the marker is removed again;
 * - payload fields may be selected but not tested (filter, sort, aggregate, function): a test would ask
 *   about the values the cut hides.
 * Admins read them as they are. A plan that touches no record collection is planned once, as before. */
import { andNodes, itemVisibility, NOTHING, TRUE } from '../access/item-visibility.ts';
import type { PermissionSet } from '../access/permissions.ts';
import { isPlainObject } from './write/payload.ts';
import { planRead, type PlanContext } from '../query/plan.ts';
import type { FieldPlan, FilterNode, ReadPlan, RowScope, SelectPlan } from '../query/plan-types.ts';
import type { Query } from '../query/types.ts';
import type { SchemaOverview } from '../schema/types.ts';
import { readableDelta } from '../versions/readable-delta.ts';

interface RecordKind {
  /** Fields holding the item's values. */
  payload: readonly string[];
  /** Records of items with no row yet are visible to the collection's readers (drafts of new content). */
  newContent: boolean;
  /** Records exist only for user collections. */
  userOnly: boolean;
}

const RECORDS: Readonly<Record<string, RecordKind>> = Object.freeze({
  svc_revisions: { payload: ['data', 'delta'], newContent: false, userOnly: false },
  svc_versions: { payload: ['delta'], newContent: true, userOnly: true },
});

/** Output names no field or alias can have (those are identifiers). */
const COLLECTION_MARK = '$collection';
const branchMark = (collection: string): string => `$branch:${collection}`;

/** Where the statement's output holds records to cut, following the plan's relations. */
interface CutNode {
  /** Output names of the payload columns, when this level reads a record collection. */
  payload: string[] | null;
  children: { name: string; many: boolean; node: CutNode }[];
  a2o: { name: string; branches: Map<string, CutNode> }[];
}

export interface RecordCut {
  node: CutNode;
  schema: SchemaOverview;
  permissions: PermissionSet;
}

function isRecordCollection(name: string): boolean {
  return Object.hasOwn(RECORDS, name);
}

/** The caller's permissions, noting which record collections the planner reads. */
function probe(permissions: PermissionSet, touched: Set<string>): PermissionSet {
  return {
    clockDependent: permissions.clockDependent,
    get(collection, action) {
      const p = permissions.get(collection, action);
      if (p && action === 'read' && isRecordCollection(collection)) touched.add(collection);
      return p;
    },
  };
}

/** The caller's permissions with the payload fields of record collections unreadable: planning with them
 * refuses every test of a payload field as the planner refuses an unreadable field (FORBIDDEN). */
function opaque(schema: SchemaOverview, permissions: PermissionSet): PermissionSet {
  return {
    clockDependent: permissions.clockDependent,
    get(collection, action) {
      const p = permissions.get(collection, action);
      if (!p || action !== 'read' || !isRecordCollection(collection)) return p;
      const payload = RECORDS[collection].payload;
      const all = p.fields ?? new Set(Object.keys(schema.collections[collection].fields));
      return { ...p, fields: new Set([...all].filter((f) => !payload.includes(f))) };
    },
  };
}

/** The plan's row scope with each touched record collection narrowed to records of readable items. Without a
 * share scope every other collection is left as it is (a scope entry that adds nothing). */
function recordScope(ctx: PlanContext, touched: Set<string>): RowScope {
  const out = new Map<string, FilterNode>();
  if (ctx.scope) for (const [name, node] of ctx.scope) out.set(name, node);
  else for (const name of Object.keys(ctx.schema.collections)) out.set(name, TRUE);
  for (const name of touched) {
    const records = ctx.schema.collections[name];
    const kind = RECORDS[name];
    const base = ctx.scope ? ctx.scope.get(name) ?? NOTHING : null;
    const visible = records.fields.collection && records.fields.item
      ? itemVisibility(ctx, records, { newContent: kind.newContent, include: kind.userOnly ? (c) => !c.system : undefined })
      : NOTHING;
    out.set(name, andNodes(base, visible)!);
  }
  return out;
}

function markSelect(plan: SelectPlan): { plan: SelectPlan; node: CutNode | null } {
  const node: CutNode = { payload: null, children: [], a2o: [] };
  const fields: FieldPlan[] = [];
  for (const f of plan.fields) {
    if ((f.kind === 'm2o' || f.kind === 'o2m') && !(f.kind === 'o2m' && f.keysOnly)) {
      const sub = markSelect(f.child);
      fields.push({ ...f, child: sub.plan });
      if (sub.node) node.children.push({ name: f.name, many: f.kind === 'o2m', node: sub.node });
    } else if (f.kind === 'a2o') {
      const branches = new Map<string, CutNode>();
      const planned = f.branches.map((b) => {
        const sub = markSelect(b.child);
        if (!sub.node) return b;
        branches.set(b.collection, sub.node);
        const pk = sub.plan.collection.fields[sub.plan.collection.primary!];
        const mark: FieldPlan = { kind: 'column', name: branchMark(b.collection), field: pk };
        return { collection: b.collection, child: { ...sub.plan, fields: [...sub.plan.fields, mark] } };
      });
      fields.push({ ...f, branches: planned });
      if (branches.size > 0) node.a2o.push({ name: f.name, branches });
    } else {
      fields.push(f);
    }
  }
  const name = plan.collection.collection;
  if (isRecordCollection(name)) {
    const payload = RECORDS[name].payload;
    const names = fields.filter((f) => f.kind === 'column' && payload.includes(f.field.field)).map((f) => f.name);
    if (names.length > 0) {
      node.payload = names;
      fields.push({ kind: 'column', name: COLLECTION_MARK, field: plan.collection.fields.collection });
    }
  }
  if (!node.payload && node.children.length === 0 && node.a2o.length === 0) return { plan, node: null };
  return { plan: { ...plan, fields }, node };
}

/** planRead for a caller, with records about items narrowed and marked for the cut (see the top). */
export function planRecordAwareRead(ctx: PlanContext, collection: string, q: Query): { read: ReadPlan; cut: RecordCut | null } {
  if (ctx.accountability.admin) return { read: planRead(ctx, collection, q), cut: null };
  const touched = new Set<string>();
  const first = planRead({ ...ctx, permissions: probe(ctx.permissions, touched) }, collection, q);
  if (touched.size === 0) return { read: first, cut: null };
  planRead({ ...ctx, permissions: opaque(ctx.schema, ctx.permissions) }, collection, q);
  const read = planRead({ ...ctx, scope: recordScope(ctx, touched) }, collection, q);
  if (!read.select) return { read, cut: null };
  const marked = markSelect(read.select);
  if (!marked.node) return { read, cut: null };
  return { read: { ...read, select: marked.plan }, cut: { node: marked.node, schema: ctx.schema, permissions: ctx.permissions } };
}

// ---------------------------------------------------------------- the cut, on the statement's output

function cutPayload(cut: RecordCut, collection: unknown, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  // A payload that is not an object of a known collection shows nothing.
  if (typeof collection !== 'string' || !isPlainObject(value)) return null;
  return readableDelta(cut.schema, cut.permissions, collection, value);
}

function cutRow(cut: RecordCut, row: Record<string, unknown>, node: CutNode): void {
  if (node.payload) {
    const collection = row[COLLECTION_MARK];
    delete row[COLLECTION_MARK];
    for (const name of node.payload) if (Object.hasOwn(row, name)) row[name] = cutPayload(cut, collection, row[name]);
  }
  for (const child of node.children) {
    const value = row[child.name];
    if (child.many) {
      if (Array.isArray(value)) for (const item of value) if (isPlainObject(item)) cutRow(cut, item, child.node);
    } else if (isPlainObject(value)) {
      cutRow(cut, value, child.node);
    }
  }
  for (const a2o of node.a2o) {
    const value = row[a2o.name];
    if (!isPlainObject(value)) continue;
    for (const [collection, branch] of a2o.branches) {
      const mark = branchMark(collection);
      if (!Object.hasOwn(value, mark)) continue;
      delete value[mark];
      cutRow(cut, value, branch);
    }
  }
}

/** The JSON text of a list's rows (an array) or of one row (an object or null), cut. */
export function cutRecords(cut: RecordCut, text: string): string {
  const value = JSON.parse(text) as unknown;
  if (Array.isArray(value)) {
    for (const row of value) if (isPlainObject(row)) cutRow(cut, row, cut.node);
  } else if (isPlainObject(value)) {
    cutRow(cut, value, cut.node);
  }
  return JSON.stringify(value);
}
