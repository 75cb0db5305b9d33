/** Stage 2 (plan): Query + schema overview + permissions -> ReadPlan. Pure, no database. Every field,
 * relation and operator is checked here; unknown ones are INVALID_QUERY, unreadable ones FORBIDDEN. */
import type { Accountability } from '../access/accountability.ts';
import type { PermissionSet, ResolvedPermission } from './permission-set.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import { NUMERIC_TYPES, TEXT_TYPES } from '../schema/field-types.ts';
import { relationOf } from '../schema/relations.ts';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.ts';
import { coerceFilterValue, isUuid } from './filter-values.ts';
import { parseDeepOptions, type ParseLimits } from './parse.ts';
import type {
  AggregateFunctionPlan, AggregatePlan, FieldPlan, FilterNode, FunctionPlan, GroupByPlan, ReadPlan, RowScope, SearchPlan, SelectPlan,
  SortPlan, SortTarget,
} from './plan-types.ts';
import { checkDateFunction, FUNCTION_OPERATORS, functionKey, functionValueField, parseFunctionCall, type QueryFunction } from './functions.ts';
import { FILTER_OPERATORS, type DeepQuery, type Filter, type FilterOperator, type Query } from './types.ts';

export interface PlanContext {
  schema: SchemaOverview;
  permissions: PermissionSet;
  accountability: Accountability;
  limits: ParseLimits & { defaultLimit: number; maxDepth: number; maxRelationalDepth: number };
  /** Set for share tokens: every read of a collection, nested ones and relational filters included, is
   * narrowed to the rows in reach (core/access/share-reach.ts). */
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

/** Postgres' json has no ordering or equality: sorting, grouping, distinct counts and min/max on it fail. */
function isOrderable(field: FieldOverview): boolean {
  return field.type !== 'json';
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

/** A relational filter's condition on a related collection. The caller's own filters only test rows it may read
 * there: the related collection's row filter (and share scope) is ANDed in, as a plain read of it would be, so a
 * filter cannot ask questions about rows the caller cannot see. A permission rule's own filter (`trusted`) is not
 * narrowed: it is the rule. */
function relatedCondition(ctx: PlanContext, related: CollectionOverview, child: FilterNode, trusted: boolean): FilterNode {
  return trusted ? child : and(child, rowFilter(ctx, related, readPermission(ctx, related.collection)))!;
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
    if (key.startsWith('$FOLLOW')) {
      children.push(planFollow(ctx, collection, key, value, depth, trusted));
      continue;
    }
    const call = parseFunctionCall(key);
    if (call) {
      children.push(...planFunctionFilter(ctx, collection, key, call, value, trusted));
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

/** The condition on the rows of a to-many relation: `_some` (the default) or `_none` of them match. */
function someOrNone(name: string, value: Record<string, unknown>): { none: boolean; inner: Filter } {
  const keys = Object.keys(value);
  if (!keys.includes('_some') && !keys.includes('_none')) return { none: false, inner: value };
  if (keys.length !== 1) throw new InvalidQueryError(`Invalid filter on "${name}": "_some"/"_none" must stand alone.`);
  const inner = value[keys[0]];
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) throw new InvalidQueryError(`Invalid filter on "${name}": "${keys[0]}" needs an object.`);
  return { none: keys[0] === '_none', inner: inner as Filter };
}

function planRelationalFilter(
  ctx: PlanContext, collection: CollectionOverview, field: FieldOverview,
  relation: NonNullable<ReturnType<typeof relationOf>>, value: Record<string, unknown>, scope: string | undefined, depth: number,
  trusted: boolean,
): FilterNode {
  if (relation.kind !== 'o2m' && ('_some' in value || '_none' in value)) {
    throw new InvalidQueryError(`Invalid filter on "${field.field}": "_some"/"_none" apply to to-many relations, "${field.field}" is to-one.`);
  }
  if (relation.kind === 'm2o') {
    const related = getCollection(ctx, relation.related);
    return { kind: 'm2o', fk: field, related, child: relatedCondition(ctx, related, planFilter(ctx, related, value as Filter, depth + 1, trusted), trusted) };
  }
  if (relation.kind === 'o2m') {
    const related = getCollection(ctx, relation.related);
    const { none, inner } = someOrNone(field.field, value);
    return {
      kind: 'o2m', none, related,
      fkOnChild: related.fields[relation.relation.field],
      parentKey: primaryOf(collection),
      child: relatedCondition(ctx, related, planFilter(ctx, related, inner, depth + 1, trusted), trusted),
    };
  }
  // A2O: one branch per target collection, each gated by the discriminator.
  const targets = scope ? [scope] : relation.allowed;
  if (scope && !relation.allowed.includes(scope)) throw new InvalidQueryError(`Invalid filter: "${scope}" is not a collection of "${field.field}".`);
  const branches: { related: CollectionOverview; child: FilterNode }[] = [];
  for (const target of targets) {
    const related = getCollection(ctx, target);
    if (!scope && !Object.keys(value).every((k) => k === '_and' || k === '_or' || k.split(':')[0] in related.fields)) continue;
    branches.push({ related, child: relatedCondition(ctx, related, planFilter(ctx, related, value as Filter, depth + 1, trusted), trusted) });
  }
  if (branches.length === 0) throw new InvalidQueryError(`Invalid filter on "${field.field}": no collection of it has those fields.`);
  return { kind: 'a2o', keyField: field, collectionField: collection.fields[relation.collectionField], branches };
}

const FOLLOW = /^\$FOLLOW\(\s*([\w-]+)\s*,\s*([\w-]+)\s*\)$/;

/** `$FOLLOW(collection, field)`: the rows of `collection` whose many-to-one `field` points at this row, for a
 * reverse relation that has no O2M alias field. Same semantics as an O2M filter (`_some` by default, `_none`). */
function planFollow(ctx: PlanContext, collection: CollectionOverview, key: string, value: unknown, depth: number, trusted: boolean): FilterNode {
  const m = FOLLOW.exec(key);
  if (!m) throw new InvalidQueryError(`Invalid filter key "${key}": expected $FOLLOW(collection, field).`);
  const related = getCollection(ctx, m[1]);
  const fk = Object.hasOwn(related.fields, m[2]) ? related.fields[m[2]] : undefined;
  const relation = fk ? relationOf(ctx.schema, related.collection, fk.field) : null;
  if (!fk || relation?.kind !== 'm2o' || relation.related !== collection.collection) {
    throw new InvalidQueryError(`Invalid filter "${key}": "${m[1]}.${m[2]}" is not a many-to-one relation to "${collection.collection}".`);
  }
  if (!trusted && !canRead(readPermission(ctx, related.collection), fk.field)) {
    throw new ForbiddenError(`You don't have permission to filter on field "${m[2]}" of "${m[1]}".`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidQueryError(`Invalid filter on "${key}": expected an object.`);
  const { none, inner } = someOrNone(key, value as Record<string, unknown>);
  return {
    kind: 'o2m', none, related, fkOnChild: fk, parentKey: primaryOf(collection),
    child: relatedCondition(ctx, related, planFilter(ctx, related, inner, depth + 1, trusted), trusted),
  };
}

// ---------------------------------------------------------------- functions

/** `year(date_created)`, `count(comments)` on `collection`. The field must be readable (a function reveals its
 * field); a count counts only the related rows the caller may read. `trusted`: a permission rule's own use. */
function planFunction(ctx: PlanContext, collection: CollectionOverview, call: { fn: QueryFunction; field: string }, key: string, trusted: boolean): FunctionPlan {
  const field = Object.hasOwn(collection.fields, call.field) ? collection.fields[call.field] : undefined;
  if (!field) throw new InvalidQueryError(`Invalid function "${key}": field "${call.field}" does not exist in "${collection.collection}".`);
  if (!trusted) {
    const perm = readPermission(ctx, collection.collection);
    if (!canRead(perm, field.field) || (field.special.includes('conceal') && !ctx.accountability.admin)) {
      throw new ForbiddenError(`You don't have permission to access field "${call.field}".`);
    }
  }
  if (call.fn !== 'count') {
    checkDateFunction(call.fn, field, key);
    return { kind: 'date', fn: call.fn, field };
  }
  const relation = relationOf(ctx.schema, collection.collection, field.field);
  if (relation?.kind !== 'o2m') throw new InvalidQueryError(`Function "count" needs a to-many relation, "${call.field}" is not one (in "${key}").`);
  const related = getCollection(ctx, relation.related);
  let filter: FilterNode | null = null;
  if (!trusted) {
    const perm = ctx.permissions.get(related.collection, 'read');
    if (!perm) throw new ForbiddenError(`You don't have permission to access "${related.collection}" (in "${key}").`);
    filter = rowFilter(ctx, related, perm);
  }
  return { kind: 'count', relation: field, related, fkOnChild: related.fields[relation.relation.field], parentKey: primaryOf(collection), filter };
}

function planFunctionFilter(
  ctx: PlanContext, collection: CollectionOverview, key: string, call: { fn: QueryFunction; field: string }, value: unknown, trusted: boolean,
): FilterNode[] {
  const fn = planFunction(ctx, collection, call, key, trusted);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0) {
    throw new InvalidQueryError(`Invalid filter on "${key}": expected an object of operators.`);
  }
  const stand = functionValueField(fn.kind === 'date' ? fn.field : fn.relation, key);
  return Object.entries(value).map(([op, raw]) => {
    if (!FUNCTION_OPERATORS.has(op)) throw new InvalidQueryError(`Invalid filter: operator "${op}" does not apply to "${key}".`);
    return { kind: 'cmp', field: stand, op: op as FilterOperator, value: coerceFilterValue(stand, op as FilterOperator, raw, ctx.accountability), fn };
  });
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
  return { text: text.trim(), fields, indexed: collection.searchIndex === true };
}

function planSortTarget(ctx: PlanContext, collection: CollectionOverview, path: string): SortTarget {
  const parts = path.split('.');
  if (parts.length > ctx.limits.maxRelationalDepth) throw new InvalidQueryError(`Sort "${path}" is nested too deep.`);
  const chain: SortTarget['chain'] = [];
  let current = collection;
  for (let i = 0; i < parts.length; i++) {
    const call = i === parts.length - 1 ? parseFunctionCall(parts[i]) : null;
    if (call) {
      const fn = planFunction(ctx, current, call, parts[i], false);
      return { chain, field: fn.kind === 'date' ? fn.field : fn.relation, fn };
    }
    const perm = readPermission(ctx, current.collection);
    const field = Object.hasOwn(current.fields, parts[i]) ? current.fields[parts[i]] : undefined;
    if (!field) throw new InvalidQueryError(`Invalid sort: field "${parts[i]}" does not exist in "${current.collection}".`);
    if (!canRead(perm, field.field)) throw new ForbiddenError(`You don't have permission to sort on field "${parts[i]}".`);
    if (i === parts.length - 1) {
      if (field.alias || !isOrderable(field)) throw new InvalidQueryError(`Invalid sort: field "${parts[i]}" cannot be sorted on.`);
      return { chain, field };
    }
    const relation = relationOf(ctx.schema, current.collection, field.field);
    if (!relation || relation.kind !== 'm2o') throw new InvalidQueryError(`Invalid sort: "${parts[i]}" is not a many-to-one relation.`);
    const related = getCollection(ctx, relation.related);
    // The hop only reaches a row the caller may read: an unreadable one sorts as null, like a missing one.
    chain.push({ fk: field, related, filter: rowFilter(ctx, related, readPermission(ctx, related.collection)) });
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
      const last = i === parts.length - 1;
      if (!/^[\w*-]+(:[\w-]+)?$/.test(part) && !(last && /^\w+\([\w-]+\)$/.test(part))) throw new InvalidQueryError(`Invalid field "${path}".`);
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

/** How a level was reached: the relation leading to it (for `backlink=false`), and the aliases of the top level. */
interface Navigation {
  /** The relation record the parent level followed to get here (identity-compared). */
  via: object | null;
  backlink: boolean;
  aliases?: Readonly<Record<string, string>>;
}

const TOP: Navigation = { via: null, backlink: true };

function planFields(ctx: PlanContext, collection: CollectionOverview, tree: FieldTree, deep: DeepQuery | undefined, depth: number, nav: Navigation): FieldPlan[] {
  const perm = readPermission(ctx, collection.collection);
  const aliases = nav.aliases ?? {};
  // Expand wildcards into named entries, keeping explicit entries (which may carry sub-trees).
  const entries = new Map<string, FieldTree | null>();
  const star = tree.get('*');
  if (star !== undefined) {
    for (const f of Object.values(collection.fields)) {
      const relation = relationOf(ctx.schema, collection.collection, f.field);
      if (f.alias && !relation) continue;
      if (relation && !nav.backlink && nav.via !== null && relation.relation === nav.via) continue;
      entries.set(f.field, star && relation ? star : null);
    }
  }
  const functions: FieldPlan[] = [];
  for (const [key, sub] of tree) {
    if (key === '*') continue;
    const call = parseFunctionCall(key);
    if (call) {
      functions.push({ kind: 'fn', name: functionKey(call), fn: planFunction(ctx, collection, call, key, false) });
      continue;
    }
    const name = key.split(':')[0];
    if (!Object.hasOwn(collection.fields, name) && !Object.hasOwn(aliases, name)) {
      throw new InvalidQueryError(`Invalid field "${name}": it does not exist in "${collection.collection}".`);
    }
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
    // An alias reads its field under its own name, with its own deep options (deep[alias]).
    const real = Object.hasOwn(aliases, name) ? aliases[name] : name;
    const field = collection.fields[real];
    if (!canRead(perm, real)) continue;
    const relation = relationOf(ctx.schema, collection.collection, real);
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
      const child = planSelect(ctx, related, { ...levelOpts, fields: undefined }, childTree, level, depth + 1, 'object', undefined, below(nav, relation.relation));
      out.push({ kind: 'm2o', name, fk: field, child });
    } else if (relation.kind === 'o2m') {
      // A bare O2M (keys only) into a collection the caller cannot read is left out, not an error.
      if (!childTree && !isReadable(ctx, relation.related)) continue;
      const related = getCollection(ctx, relation.related);
      const order = relationOrder(related, relation.relation.meta.sort_field);
      const child = planSelect(ctx, related, { ...levelOpts, fields: undefined }, childTree ?? new Map([[related.primary!, null]]), level, depth + 1, 'list', order, below(nav, relation.relation));
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
        branches.push({ collection: target, child: planSelect(ctx, related, {}, usable, deepLevel(level, target), depth + 1, 'object', undefined, below(nav, relation.relation)) });
      }
      if (branches.length === 0) {
        out.push({ kind: 'column', name, field });
        continue;
      }
      out.push({ kind: 'a2o', name, keyField: field, collectionField: collection.fields[relation.collectionField], branches });
    }
  }
  out.push(...functions);
  return out;
}

function below(nav: Navigation, via: object): Navigation {
  return { via, backlink: nav.backlink };
}

/** `alias[newName]=field`: a new name for a field of the top-level collection. A name clashing with a field, an
 * alias of an alias, or an unknown field is INVALID_QUERY. */
function checkAliases(collection: CollectionOverview, alias: Record<string, string>): Record<string, string> {
  for (const [name, target] of Object.entries(alias)) {
    if (!/^\w+$/.test(name)) throw new InvalidQueryError(`Invalid alias name "${name}".`);
    if (Object.hasOwn(collection.fields, name)) throw new InvalidQueryError(`Alias "${name}" clashes with a field of "${collection.collection}".`);
    if (Object.hasOwn(alias, target)) throw new InvalidQueryError(`Alias "${name}" points at another alias ("${target}").`);
    if (!Object.hasOwn(collection.fields, target)) throw new InvalidQueryError(`Alias "${name}": field "${target}" does not exist in "${collection.collection}".`);
  }
  return alias;
}

function planSelect(
  ctx: PlanContext, collection: CollectionOverview, q: Query, tree: FieldTree, deep: DeepQuery | undefined, depth: number,
  shape: 'list' | 'object', order: FieldOverview[] = collectionOrder(collection), nav: Navigation = TOP,
): SelectPlan {
  const perm = readPermission(ctx, collection.collection);
  const permFilter = rowFilter(ctx, collection, perm);
  const userFilter = q.filter ? planFilter(ctx, collection, q.filter) : null;
  const { limit, offset } = shape === 'list' ? pagination(ctx, q, ctx.limits.defaultLimit) : { limit: null, offset: 0 };
  return {
    collection,
    fields: planFields(ctx, collection, tree, deep, depth, nav),
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
  const groupBy: GroupByPlan[] = (q.groupBy ?? []).map((g) => {
    const call = parseFunctionCall(g);
    if (!call) {
      const field = column(g, 'groupBy');
      if (!isOrderable(field)) throw new InvalidQueryError(`Invalid groupBy: field "${g}" of type ${field.type} cannot be grouped.`);
      return { name: g, field };
    }
    const fn = planFunction(ctx, collection, call, g, false);
    return { name: functionKey(call), field: fn.kind === 'date' ? fn.field : fn.relation, fn };
  });
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
      if ((fn === 'countDistinct' || fn === 'min' || fn === 'max') && !isOrderable(field)) {
        throw new InvalidQueryError(`Aggregate "${fn}" does not apply to "${name}": ${field.type} values cannot be compared.`);
      }
      functions.push({ fn, field });
    }
  }
  if (functions.length === 0 && groupBy.length === 0) throw new InvalidQueryError('Aggregate needs at least one function.');
  const sort: AggregatePlan['sort'] = (q.sort ?? []).map((s) => {
    const desc = s.startsWith('-');
    const key = desc ? s.slice(1) : s;
    const call = parseFunctionCall(key);
    const name = call ? functionKey(call) : key;
    const g = groupBy.find((f) => f.name === name);
    if (g) return { expr: { group: g }, desc };
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
  const nav: Navigation = { via: null, backlink: q.backlink !== false, aliases: q.alias ? checkAliases(collection, q.alias) : undefined };
  const select = planSelect(ctx, collection, q, tree, q.deep, 0, 'list', undefined, nav);
  if (q.meta?.includes('filter_count')) meta.filterCount = { filter: select.filter, search: select.search };
  return { select, aggregate: null, meta };
}
