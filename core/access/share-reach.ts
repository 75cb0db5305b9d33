/** How far a share token reads (Directus' share scope, getPermissionsForShare): the shared item and the rows
 * related to it, in the collections the share's role may read. Pure: schema + the role's permissions ->
 * one filter per collection in reach, each an OR over the relation paths from the shared item.
 *
 * From a collection in reach (starting at the shared one), following Directus' traversal:
 * - O2M (a relation whose "one" side is this collection): the many side's rows pointing at a row in reach,
 *   and on from there;
 * - M2O: the rows a row in reach points at; on from there only when the relation has its O2M alias
 *   (one_field), so widely referenced collections (users, files) are not a way into everything that points
 *   at them;
 * - A2O: the rows of each allowed collection a row in reach points at; not further.
 * A relation counts only when the role may read both collections and the fields that hold it.
 *
 * Unlike Directus, a path never returns to a collection it has passed, the shared collection included: the
 * share reads its one item of the shared collection wherever it appears (not, say, the author's other posts
 * through `author.posts`). Paths are at most MAX_RELATIONAL_DEPTH long and at most MAX_PATHS are kept,
 * shortest first, so the statement stays bounded on densely related schemas. */
import type { PermissionSet, ResolvedPermission } from './permissions.ts';
import type { FilterNode, RowScope } from '../query/plan-types.ts';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.ts';

export const MAX_PATHS = 100;

interface Step {
  collection: CollectionOverview;
  /** The rows of `collection` reached along this path. */
  reach: FilterNode;
  /** Collections on the path, this one included. */
  path: ReadonlySet<string>;
}

function fieldOf(collection: CollectionOverview, name: string | null): FieldOverview | undefined {
  return name && Object.hasOwn(collection.fields, name) ? collection.fields[name] : undefined;
}

function canRead(perm: ResolvedPermission, field: string): boolean {
  return perm.fields === null || perm.fields.has(field);
}

/** `rootKey` is the shared item's key, already coerced to the primary key's type. */
export function shareReach(
  schema: SchemaOverview, role: PermissionSet, root: CollectionOverview, rootKey: unknown, maxDepth: number,
): RowScope {
  const out = new Map<string, FilterNode[]>();
  const readable = (name: string): { collection: CollectionOverview; perm: ResolvedPermission } | null => {
    const collection = Object.hasOwn(schema.collections, name) ? schema.collections[name] : undefined;
    if (!collection || collection.folder || !collection.primary) return null;
    const perm = role.get(name, 'read');
    return perm ? { collection, perm } : null;
  };
  const primary = (c: CollectionOverview): FieldOverview => c.fields[c.primary!];

  if (!readable(root.collection)) return new Map();
  const rootReach: FilterNode = { kind: 'cmp', field: primary(root), op: '_eq', value: rootKey };
  out.set(root.collection, [rootReach]);
  let paths = 1;
  let frontier: Step[] = [{ collection: root, reach: rootReach, path: new Set([root.collection]) }];

  const add = (next: Step[], collection: CollectionOverview, reach: FilterNode, path: ReadonlySet<string>, onward: boolean): void => {
    if (paths >= MAX_PATHS) return;
    paths++;
    const list = out.get(collection.collection);
    if (list) list.push(reach);
    else out.set(collection.collection, [reach]);
    if (onward) next.push({ collection, reach, path: new Set(path).add(collection.collection) });
  };

  for (let depth = 1; depth <= maxDepth && frontier.length > 0 && paths < MAX_PATHS; depth++) {
    const next: Step[] = [];
    for (const { collection: current, reach, path } of frontier) {
      const currentPerm = role.get(current.collection, 'read')!;
      for (const relation of schema.relations) {
        const oneField = relation.meta.one_field;
        if (relation.related_collection === current.collection) {
          // O2M: the many side's rows that point at a row in reach.
          const many = readable(relation.collection);
          const fk = many && fieldOf(many.collection, relation.field);
          if (!many || !fk || path.has(many.collection.collection) || !canRead(many.perm, fk.field)) continue;
          if (oneField && !canRead(currentPerm, oneField)) continue;
          add(next, many.collection, { kind: 'm2o', fk, related: current, child: reach }, path, true);
        } else if (relation.collection !== current.collection) {
          continue;
        } else if (relation.related_collection === null) {
          // A2O: the rows of each allowed collection that a row in reach points at.
          const keyField = fieldOf(current, relation.field);
          const collectionField = fieldOf(current, relation.meta.one_collection_field);
          if (!keyField || !collectionField || !canRead(currentPerm, keyField.field)) continue;
          for (const name of relation.meta.one_allowed_collections ?? []) {
            const target = readable(name);
            if (!target || path.has(name)) continue;
            add(next, target.collection, {
              kind: 'a2oTarget', related: current, keyField, collectionField, target: name, ownKey: primary(target.collection), child: reach,
            }, path, false);
          }
        } else {
          // M2O: the rows a row in reach points at.
          const related = readable(relation.related_collection);
          const fk = fieldOf(current, relation.field);
          if (!related || !fk || path.has(related.collection.collection) || !canRead(currentPerm, fk.field)) continue;
          if (oneField && !canRead(related.perm, oneField)) continue;
          add(next, related.collection, {
            kind: 'o2m', none: false, related: current, fkOnChild: fk, parentKey: primary(related.collection), child: reach,
          }, path, oneField !== null && fieldOf(related.collection, oneField) !== undefined);
        }
      }
    }
    frontier = next;
  }

  const scope = new Map<string, FilterNode>();
  for (const [name, list] of out) scope.set(name, list.length === 1 ? list[0] : { kind: 'or', children: list });
  return scope;
}
