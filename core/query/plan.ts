/** Stage 2 (plan): Query + schema overview + permissions -> ReadPlan. Pure, no database. Every field,
 * relation and operator is checked here; unknown ones are INVALID_QUERY, unreadable ones FORBIDDEN. */
import type { Accountability } from '../access/accountability.ts';
import type { PermissionSet, ResolvedPermission } from '../access/permissions.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import { NUMERIC_TYPES, TEXT_TYPES } from '../schema/field-types.ts';
import { relationOf } from '../schema/relations.ts';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.ts';
import { coerceFilterValue, isUuid } from './filter-values.ts';
import { parseDeepOptions, type ParseLimits } from './parse.ts';
import type {
  AggregateFunctionPlan, AggregatePlan, FieldPlan, FilterNode, ReadPlan, RowScope, SearchPlan, SelectPlan, SortPlan, SortTarget,
} from './plan-types.ts';
import { FILTER_OPERATORS, type DeepQuery, type Filter, type FilterOperator, type Query } from './types.ts';

export interface PlanContext {
  schema: SchemaOverview;
  permissions: PermissionSet;
  accountability: Accountability;
  limits: ParseLimits & { defaultLimit: number; maxDepth: number; maxRelationalDepth: number };
  /** Set for share tokens: every read of a collection, nested ones and relational filters included, is
   * narrowed to the rows in reach (core/shares/reach.ts). */
  scope?: RowScope;
}

type FieldTree = Map<string, FieldTree | null>;

/** svc_ collections follow permissions like any other (the /items/svc_* refusal is itemsCollection's): nested
 * reads into them need a read permission, explicit or built in (core/access/builtin.ts). */
function readPermission(ctx: PlanContext, collection: string): ResolvedPermission {
  const p = ctx.permissions.get(collection, 'read');
  if (!p) throw new ForbiddenError();
  return p;
}

function isReadable(ctx: PlanContext, collection: string): boolean {
  return ctx.permissions.get(collection, 'read') !== null;
}

function canRead(perm: ResolvedPermission, field: string): boolean {
  return perm.fields === null || perm.fields.has(field);
}

function getCollection(ctx: PlanContext, name: string): CollectionOverview {
  const c = Object.hasOwn(ctx.schema.collections, name) ? ctx.schema.collections[name] : undefined;
  if (!c || c.folder || !c.primary) throw new InvalidQueryError(`Collection "${name}" does not exist.`);
  return c;
}

function primaryOf(c: CollectionOverview): FieldOverview {
  return c.fields[c.primary!];
}

function and(a: FilterNode | null, b: FilterNode | null): FilterNode | null {
  if (!a) return b;
  if (!b) return a;
  return { kind: 'and', children: [a, b] };
}

const NOTHING: FilterNode = { kind: 'bool', value: false };

/** The scope's predicate for `collection` (null without a scope: nothing to add). */
function scopeOf(ctx: PlanContext, collection: CollectionOverview): FilterNode | null {
  return ctx.scope ? ctx.scope.get(collection.collection) ?? NOTHING : null;
}

/** Row filter of the caller on `collection`: its permission's filter, within its scope. */
function rowFilter(ctx: PlanContext, collection: CollectionOverview, perm: ResolvedPermission): FilterNode | null {
  return and(perm.filter ? planFilter(ctx, collection, perm.filter, 0, true) : null, scopeOf(ctx, collection));
}

/** A relational filter's condition on a related collection: a caller with a scope only tests rows in reach. */
function scopedChild(ctx: PlanContext, related: CollectionOverview, child: FilterNode, trusted: boolean): FilterNode {
  return trusted ? child : and(child, scopeOf(ctx, related))!;
}

// ---------------------------------------------------------------- filters

function isOperatorObject(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k.startsWith('_') && k !== '_and' && k !== '_or' && k !== '_some' && k !== '_none');
}

/** `trusted` marks a permission row filter: it may test fields and relations the caller cannot read itself. */
export function planFilter(ctx: PlanContext, collection: CollectionOverview, filter: Filter, depth = 0, trusted = false): FilterNode {
  if (depth > ctx.limits.maxDepth) throw new InvalidQueryError(`Filter is nested deeper than ${ctx.limits.maxDepth} levels.`);
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) throw new InvalidQueryError('Invalid filter: expected an object.');
  const perm = trusted ? null : readPermission(ctx, collection.collection);
  const children: FilterNode[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '_and' || key === '_or') {
      if (!Array.isArray(value)) throw new InvalidQueryError(`Invalid filter: "${key}" needs an array.`);
      children.push({ kind: key === '_and' ? 'and' : 'or', children: value.map((v) => planFilter(ctx, collection, v as Filter, depth + 1, trusted)) });
      continue;
    }
    const [name, scope] = key.split(':', 2);
    const field = Object.hasOwn(collection.fields, name) ? collection.fields[name] : undefined;
    if (!field) throw new InvalidQueryError(`Invalid filter: field "${name}" does not exist in "${collection.collection}".`);
    if (perm && !canRead(perm, name)) throw new ForbiddenError(`You don't have permission to filter on field "${name}".`);
    // Comparing against a secret would reveal it piece by piece (`_starts_with`).
    if (field.special.includes('conceal') && !ctx.accountability.admin) throw new ForbiddenError(`You don't have permission to filter on field "${name}".`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidQueryError(`Invalid filter on field "${name}": expected an object of operators.`);
    }
    const obj = value as Record<string, unknown>;
    const relation = relationOf(ctx.schema, collection.collection, name);
    if (relation && !isOperatorObject(obj)) {
      children.push(planRelationalFilter(ctx, collection, field, relation, obj, scope, depth, trusted));
      continue;
    }
    if (field.alias) throw new InvalidQueryError(`Invalid filter: field "${name}" has no value to compare.`);
    for (const [op, raw] of Object.entries(obj)) {
      if (!FILTER_OPERATORS.has(op)) throw new InvalidQueryError(`Invalid filter: unknown operator "${op}" on field "${name}".`);
      children.push({ kind: 'cmp', field, op: op as FilterOperator, value: coerceFilterValue(field, op as FilterOperator, raw, ctx.accountability) });
    }
  }
  if (children.length === 1) return children[0];
  if (children.length === 0) return { kind: 'bool', value: true };
  return { kind: 'and', children };
}

function planRelationalFilter(
  ctx: PlanContext, collection: CollectionOverview, field: FieldOverview,
  relation: NonNullable<ReturnType<typeof relationOf>>, value: Record<string, unknown>, scope: string | undefined, depth: number,
  trusted: boolean,
): FilterNode {
  if (relation.kind === 'm2o') {
    const related = getCollection(ctx, relation.related);
    return { kind: 'm2o', fk: field, related, child: scopedChild(ctx, related, planFilter(ctx, related, value as Filter, depth + 1, trusted), trusted) };
  }
  if (relation.kind === 'o2m') {
    const related = getCollection(ctx, relation.related);
    const keys = Object.keys(value);
    let none = false;
    let inner = value;
    if (keys.includes('_some') || keys.includes('_none')) {
      if (keys.length !== 1) throw new InvalidQueryError(`Invalid filter on "${field.field}": "_some"/"_none" must stand alone.`);
      none = keys[0] === '_none';
      inner = value[keys[0]] as Record<string, unknown>;
    }
    return {
      kind: 'o2m', none, related,
      fkOnChild: related.fields[relation.relation.field],
      parentKey: primaryOf(collection),
      child: scopedChild(ctx, related, planFilter(ctx, related, inner as Filter, depth + 1, trusted), trusted),
    };
  }
  // A2O: one branch per target collection, each gated by the discriminator.
  const targets = scope ? [scope] : relation.allowed;
  if (scope && !relation.allowed.includes(scope)) throw new InvalidQueryError(`Invalid filter: "${scope}" is not a collection of "${field.field}".`);
  const branches: { related: CollectionOverview; child: FilterNode }[] = [];
  for (const target of targets) {
    const related = getCollection(ctx, target);
    if (!scope && !Object.keys(value).every((k) => k === '_and' || k === '_or' || k.split(':')[0] in related.fields)) continue;
    branches.push({ related, child: scopedChild(ctx, related, planFilter(ctx, related, value as Filter, depth + 1, trusted), trusted) });
  }
  if (branches.length === 0) throw new InvalidQueryError(`Invalid filter on "${field.field}": no collection of it has those fields.`);
  return { kind: 'a2o', keyField: field, collectionField: collection.fields[relation.collectionField], branches };
}

// ---------------------------------------------------------------- search and sort

function planSearch(ctx: PlanContext, collection: CollectionOverview, text: string | undefined): SearchPlan | null {
  if (text === undefined || text === '') return null;
  const perm = readPermission(ctx, collection.collection);
  const numeric = /^-?\d+(\.\d+)?$/.test(text.trim());
  const uuid = isUuid(text.trim());
  const fields = Object.values(collection.fields).filter((f) => {
    if (f.alias || f.type === 'hash' || f.special.includes('conceal') || !canRead(perm, f.field)) return false;
    if (TEXT_TYPES.has(f.type)) return true;
    if (NUMERIC_TYPES.has(f.type)) return numeric && (f.type !== 'integer' || Math.abs(Number(text)) <= 2147483647) && (f.type === 'float' || f.type === 'decimal' || !text.includes('.'));
    if (f.type === 'uuid') return uuid;
    return false;
  });
  return { text: text.trim(), fields };
}

function planSortTarget(ctx: PlanContext, collection: CollectionOverview, path: string): SortTarget {
  const parts = path.split('.');
  if (parts.length > ctx.limits.maxRelationalDepth) throw new InvalidQueryError(`Sort "${path}" is nested too deep.`);
  const chain: SortTarget['chain'] = [];
  let current = collection;
  for (let i = 0; i < parts.length; i++) {
    const perm = readPermission(ctx, current.collection);
    const field = Object.hasOwn(current.fields, parts[i]) ? current.fields[parts[i]] : undefined;
    if (!field) throw new InvalidQueryError(`Invalid sort: field "${parts[i]}" does not exist in "${current.collection}".`);
    if (!canRead(perm, field.field)) throw new ForbiddenError(`You don't have permission to sort on field "${parts[i]}".`);
    if (i === parts.length - 1) {
      if (field.alias) throw new InvalidQueryError(`Invalid sort: field "${parts[i]}" cannot be sorted on.`);
      return { chain, field };
    }
    const relation = relationOf(ctx.schema, current.collection, field.field);
    if (!relation || relation.kind !== 'm2o') throw new InvalidQueryError(`Invalid sort: "${parts[i]}" is not a many-to-one relation.`);
    const related = getCollection(ctx, relation.related);
    chain.push({ fk: field, related });
    current = related;
  }
  throw new InvalidQueryError(`Invalid sort "${path}".`);
}

/** The caller's sort, else `defaults` (the server's order: no read permission needed on its fields). */
function planSort(ctx: PlanContext, collection: CollectionOverview, sort: string[] | undefined, defaults: FieldOverview[]): SortPlan[] {
  if (sort && sort.length > 0) {
    return sort.map((s) => {
      const desc = s.startsWith('-');
      return { target: planSortTarget(ctx, collection, desc ? s.slice(1) : s), desc };
    });
  }
  return defaults.map((field) => ({ target: { chain: [], field }, desc: false }));
}

/** Default order of a list: the collection's sort field, else the primary key. */
function collectionOrder(collection: CollectionOverview): FieldOverview[] {
  const field = collection.sortField && collection.fields[collection.sortField] ? collection.fields[collection.sortField] : primaryOf(collection);
  return [field];
}

/** Default order of an O2M: the relation's sort_field (the order Directus' list interfaces keep), the key
 * breaking ties; else the related collection's own order. */
function relationOrder(related: CollectionOverview, sortField: string | null): FieldOverview[] {
  const field = sortField && Object.hasOwn(related.fields, sortField) ? related.fields[sortField] : undefined;
  if (!field || field.alias) return collectionOrder(related);
  return field.isPrimaryKey ? [field] : [field, primaryOf(related)];
}

function pagination(ctx: PlanContext, q: Query, defaultLimit: number): { limit: number | null; offset: number } {
  const raw = q.limit ?? defaultLimit;
  const limit = raw === -1 ? null : raw;
  const offset = q.page !== undefined && limit !== null ? (q.page - 1) * limit : q.offset ?? 0;
  return { limit, offset };
}

// ---------------------------------------------------------------- fields

function buildTree(paths: string[], maxDepth: number): FieldTree {
  const root: FieldTree = new Map();
  for (const path of paths) {
    const parts = path.split('.');
    if (parts.length > maxDepth + 1) throw new InvalidQueryError(`Field "${path}" is nested deeper than ${maxDepth} relations.`);
    let node = root;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!/^[\w*-]+(:[\w-]+)?$/.test(part)) throw new InvalidQueryError(`Invalid field "${path}".`);
      const last = i === parts.length - 1;
      const existing = node.get(part);
      if (last) {
        if (existing === undefined) node.set(part, null);
      } else {
        let next = existing;
        if (!next) {
          next = new Map();
          node.set(part, next);
        }
        node = next;
      }
    }
  }
  return root;
}

function mergeTrees(a: FieldTree | null, b: FieldTree | null): FieldTree | null {
  if (!a) return b;
  if (!b) return a;
  const out: FieldTree = new Map(a);
  for (const [k, v] of b) out.set(k, out.has(k) ? mergeTrees(out.get(k)!, v) : v);
  return out;
}

function deepLevel(deep: DeepQuery | undefined, name: string): DeepQuery | undefined {
  const v = deep?.[name];
  return typeof v === 'object' && v !== null ? (v as DeepQuery) : undefined;
}

function planFields(ctx: PlanContext, collection: CollectionOverview, tree: FieldTree, deep: DeepQuery | undefined, depth: number): FieldPlan[] {
  const perm = readPermission(ctx, collection.collection);
  // Expand wildcards into named entries, keeping explicit entries (which may carry sub-trees).
  const entries = new Map<string, FieldTree | null>();
  const star = tree.get('*');
  if (star !== undefined) {
    for (const f of Object.values(collection.fields)) {
      const relation = relationOf(ctx.schema, collection.collection, f.field);
      if (f.alias && !relation) continue;
      entries.set(f.field, star && relation ? star : null);
    }
  }
  for (const [key, sub] of tree) {
    if (key === '*') continue;
    const name = key.split(':')[0];
    if (!Object.hasOwn(collection.fields, name)) throw new InvalidQueryError(`Invalid field "${name}": it does not exist in "${collection.collection}".`);
    entries.set(key, mergeTrees(key.includes(':') ? null : entries.get(key) ?? null, sub));
  }

  // A2O scoped entries (`item:block_hero`) group under their field.
  const scoped = new Map<string, Map<string, FieldTree | null>>();
  for (const [key, sub] of entries) {
    if (!key.includes(':')) continue;
    const [name, scope] = key.split(':');
    entries.delete(key);
    if (!scoped.has(name)) scoped.set(name, new Map());
    scoped.get(name)!.set(scope, sub);
    if (!entries.has(name)) entries.set(name, null);
  }

  const out: FieldPlan[] = [];
  for (const [name, sub] of entries) {
    const field = collection.fields[name];
    if (!canRead(perm, name)) continue;
    const relation = relationOf(ctx.schema, collection.collection, name);
    const scopes = scoped.get(name);
    if (!relation) {
      if (sub) throw new InvalidQueryError(`Invalid field "${name}.*": "${name}" is not a relation.`);
      if (field.alias) continue;
      out.push({ kind: 'column', name, field });
      continue;
    }
    if (depth >= ctx.limits.maxRelationalDepth && (sub || scopes)) throw new InvalidQueryError(`Fields are nested deeper than ${ctx.limits.maxRelationalDepth} relations.`);
    const level = deepLevel(deep, name);
    const levelOpts = level ? parseDeepOptions(level, ctx.limits, `deep[${name}]`) : {};
    const childTree = sub ?? (levelOpts.fields ? buildTree(levelOpts.fields, ctx.limits.maxRelationalDepth) : null);
    if (relation.kind === 'm2o') {
      if (!childTree) {
        out.push({ kind: 'column', name, field });
        continue;
      }
      const related = getCollection(ctx, relation.related);
      const child = planSelect(ctx, related, { ...levelOpts, fields: undefined }, childTree, level, depth + 1, 'object');
      out.push({ kind: 'm2o', name, fk: field, child });
    } else if (relation.kind === 'o2m') {
      // A bare O2M (keys only) into a collection the caller cannot read is left out, not an error.
      if (!childTree && !isReadable(ctx, relation.related)) continue;
      const related = getCollection(ctx, relation.related);
      const order = relationOrder(related, relation.relation.meta.sort_field);
      const child = planSelect(ctx, related, { ...levelOpts, fields: undefined }, childTree ?? new Map([[related.primary!, null]]), level, depth + 1, 'list', order);
      out.push({ kind: 'o2m', name, fkOnChild: related.fields[relation.relation.field], parentKey: primaryOf(collection), child, keysOnly: !childTree });
    } else {
      const branches: { collection: string; child: SelectPlan }[] = [];
      const targets = scopes ? [...scopes.keys()] : childTree ? relation.allowed : [];
      for (const target of targets) {
        if (!relation.allowed.includes(target)) throw new InvalidQueryError(`Invalid field "${name}:${target}": not a collection of "${name}".`);
        const related = getCollection(ctx, target);
        const branchTree = scopes?.get(target) ?? childTree;
        if (!branchTree) continue;
        const usable: FieldTree = new Map([...branchTree].filter(([k]) => k === '*' || scopes || related.fields[k.split(':')[0]]));
        branches.push({ collection: target, child: planSelect(ctx, related, {}, usable, deepLevel(level, target), depth + 1, 'object') });
      }
      if (branches.length === 0) {
        out.push({ kind: 'column', name, field });
        continue;
      }
      out.push({ kind: 'a2o', name, keyField: field, collectionField: collection.fields[relation.collectionField], branches });
    }
  }
  return out;
}

function planSelect(
  ctx: PlanContext, collection: CollectionOverview, q: Query, tree: FieldTree, deep: DeepQuery | undefined, depth: number,
  shape: 'list' | 'object', order: FieldOverview[] = collectionOrder(collection),
): SelectPlan {
  const perm = readPermission(ctx, collection.collection);
  const permFilter = rowFilter(ctx, collection, perm);
  const userFilter = q.filter ? planFilter(ctx, collection, q.filter) : null;
  const { limit, offset } = shape === 'list' ? pagination(ctx, q, ctx.limits.defaultLimit) : { limit: null, offset: 0 };
  return {
    collection,
    fields: planFields(ctx, collection, tree, deep, depth),
    filter: and(userFilter, permFilter),
    search: planSearch(ctx, collection, q.search),
    sort: shape === 'list' ? planSort(ctx, collection, q.sort, order) : [],
    limit,
    offset,
  };
}

// ---------------------------------------------------------------- aggregate

function planAggregate(ctx: PlanContext, collection: CollectionOverview, q: Query, permFilter: FilterNode | null, userFilter: FilterNode | null, search: SearchPlan | null): AggregatePlan {
  const perm = readPermission(ctx, collection.collection);
  const column = (name: string, what: string): FieldOverview => {
    const f = Object.hasOwn(collection.fields, name) ? collection.fields[name] : undefined;
    if (!f || f.alias) throw new InvalidQueryError(`Invalid ${what}: field "${name}" does not exist in "${collection.collection}".`);
    if (!canRead(perm, name)) throw new ForbiddenError(`You don't have permission to access field "${name}".`);
    return f;
  };
  const groupBy = (q.groupBy ?? []).map((g) => column(g, 'groupBy'));
  const functions: AggregateFunctionPlan[] = [];
  for (const [fn, fields] of Object.entries(q.aggregate ?? {}) as [AggregateFunctionPlan['fn'], string[]][]) {
    for (const name of fields) {
      if (name === '*') {
        if (fn !== 'count') throw new InvalidQueryError(`Aggregate "${fn}" needs a field, not "*".`);
        functions.push({ fn, field: null });
        continue;
      }
      const field = column(name, `aggregate[${fn}]`);
      if ((fn === 'sum' || fn === 'avg') && !NUMERIC_TYPES.has(field.type)) throw new InvalidQueryError(`Aggregate "${fn}" needs a numeric field, "${name}" is ${field.type}.`);
      functions.push({ fn, field });
    }
  }
  if (functions.length === 0 && groupBy.length === 0) throw new InvalidQueryError('Aggregate needs at least one function.');
  const sort: AggregatePlan['sort'] = (q.sort ?? []).map((s) => {
    const desc = s.startsWith('-');
    const key = desc ? s.slice(1) : s;
    const g = groupBy.find((f) => f.field === key);
    if (g) return { expr: { field: g }, desc };
    const [fn, fieldName] = key.split('.');
    const match = functions.find((f) => f.fn === fn && (fieldName === undefined ? f.field === null || functions.filter((x) => x.fn === fn).length === 1 : f.field?.field === fieldName));
    if (!match) throw new InvalidQueryError(`Invalid sort "${s}": sort an aggregate by a groupBy field or an aggregate function.`);
    return { expr: { fn: match }, desc };
  });
  const { limit, offset } = pagination(ctx, q, ctx.limits.defaultLimit);
  return { collection, groupBy, functions, filter: and(userFilter, permFilter), search, sort, limit, offset };
}

// ---------------------------------------------------------------- entry point

export function planRead(ctx: PlanContext, collectionName: string, q: Query): ReadPlan {
  const collection = getCollection(ctx, collectionName);
  const perm = readPermission(ctx, collection.collection);
  const permFilter = rowFilter(ctx, collection, perm);
  const meta = {
    totalCount: q.meta?.includes('total_count') ? { filter: permFilter } : null,
    filterCount: null as ReadPlan['meta']['filterCount'],
  };
  if (q.aggregate || q.groupBy) {
    const userFilter = q.filter ? planFilter(ctx, collection, q.filter) : null;
    const search = planSearch(ctx, collection, q.search);
    const aggregate = planAggregate(ctx, collection, q, permFilter, userFilter, search);
    if (q.meta?.includes('filter_count')) meta.filterCount = { filter: aggregate.filter, search };
    return { select: null, aggregate, meta };
  }
  const tree = buildTree(q.fields && q.fields.length > 0 ? q.fields : ['*'], ctx.limits.maxRelationalDepth);
  const select = planSelect(ctx, collection, q, tree, q.deep, 0, 'list');
  if (q.meta?.includes('filter_count')) meta.filterCount = { filter: select.filter, search: select.search };
  return { select, aggregate: null, meta };
}
