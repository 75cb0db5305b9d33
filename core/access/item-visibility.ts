/** Which records about items (revisions, versions: rows naming an item by `collection` and `item`) a caller may
 * see: those of items it may read. The answer is one filter node over the record's own row, built from the
 * caller's read permissions, for the planner (a row scope) or for a service's own read:
 *
 * | item's collection, caller's read permission | records visible                                          |
 * |---------------------------------------------|----------------------------------------------------------|
 * | none                                        | none                                                     |
 * | every row (no row filter)                   | all, also of items since deleted (or not yet created)    |
 * | a row filter                                | those whose item exists and matches the filter           |
 * | a row filter, `newContent`                  | as above, plus those whose item has no row (yet)         |
 *
 * A share token's reach narrows each collection further (its scope), as it narrows the items themselves.
 * `newContent` is for versions: a draft of new content has no row to test the filter on, and the preview of
 * such a draft already answers its (field-cut) delta to any reader of the collection. */
import type { FilterNode } from '../query/plan-types.ts';
import { planFilter, type PlanContext } from '../query/plan.ts';
import type { CollectionOverview } from '../schema/types.ts';

export const TRUE: FilterNode = { kind: 'bool', value: true };
export const NOTHING: FilterNode = { kind: 'bool', value: false };

export function andNodes(a: FilterNode | null, b: FilterNode | null): FilterNode | null {
  if (!a) return b;
  if (!b) return a;
  return { kind: 'and', children: [a, b] };
}

function anyOf(parts: FilterNode[]): FilterNode {
  if (parts.length === 0) return NOTHING;
  return parts.length === 1 ? parts[0] : { kind: 'or', children: parts };
}

export interface VisibilityOptions {
  /** Records of items with no row are visible to readers of the collection (versions of new content). */
  newContent?: boolean;
  /** Only records of these item collections can be visible (versions exist for user collections only). */
  include?: (collection: CollectionOverview) => boolean;
}

/** The condition on a row of `records` (a collection with `collection` and `item` fields) that its item is
 * one the caller of `ctx` may read. */
export function itemVisibility(ctx: PlanContext, records: CollectionOverview, opts: VisibilityOptions = {}): FilterNode {
  const collectionField = records.fields.collection;
  const keyField = records.fields.item;
  const whole: string[] = [];
  const filtered: { related: CollectionOverview; child: FilterNode }[] = [];
  for (const c of Object.values(ctx.schema.collections)) {
    if (c.folder || !c.primary || (opts.include && !opts.include(c))) continue;
    const perm = ctx.permissions.get(c.collection, 'read');
    if (!perm) continue;
    if (ctx.scope && !ctx.scope.has(c.collection)) continue;
    // The permission's own row filter: a rule, so it may test what the caller cannot read itself.
    const rule = perm.filter ? planFilter(ctx, c, perm.filter, 0, true) : null;
    const child = andNodes(rule, ctx.scope ? ctx.scope.get(c.collection)! : null);
    if (child) filtered.push({ related: c, child });
    else whole.push(c.collection);
  }
  const parts: FilterNode[] = [];
  if (whole.length > 0) parts.push({ kind: 'cmp', field: collectionField, op: '_in', value: whole });
  if (filtered.length > 0) {
    // (collection = 'C' and exists (select 1 from C where C.pk::text = item and <C's row filter>)) or ...
    parts.push({ kind: 'a2o', keyField, collectionField, branches: filtered });
    if (opts.newContent) parts.push(andNodes(
      { kind: 'cmp', field: collectionField, op: '_in', value: filtered.map((f) => f.related.collection) },
      noItemRow(records, filtered.map((f) => f.related)),
    )!);
  }
  return anyOf(parts);
}

/** The record's item has no row. The node language has no negation, so this is the `_none` form of a to-many
 * filter over the record's own row (`not exists (select 1 from records r where r.pk = this.pk and <its item
 * has a row>)`): a primary-key lookup of the same row. */
function noItemRow(records: CollectionOverview, collections: CollectionOverview[]): FilterNode {
  const pk = records.fields[records.primary!];
  return {
    kind: 'o2m', none: true, related: records, fkOnChild: pk, parentKey: pk,
    child: {
      kind: 'a2o', keyField: records.fields.item, collectionField: records.fields.collection,
      branches: collections.map((related) => ({ related, child: TRUE })),
    },
  };
}
