/** The collections as the data model shows them: every user collection (hidden ones too) under its group, in
 * meta.sort order, and the moves of the list's reordering as `{collection, meta: {sort, group}}` changes. */
import { bySort, isSystem, type FullCollection } from '../model.ts';
import type { Placement } from '../ReorderTree.tsx';

export interface TreeNode {
  collection: FullCollection;
  name: string;
  children: TreeNode[];
}

export function buildTree(collections: FullCollection[]): TreeNode[] {
  const user = collections.filter((c) => !isSystem(c.collection));
  const names = new Set(user.map((c) => c.collection));
  const byParent = new Map<string | null, FullCollection[]>();
  for (const c of user) {
    const g = c.meta?.group && names.has(c.meta.group) && c.meta.group !== c.collection ? c.meta.group : null;
    byParent.set(g, [...(byParent.get(g) ?? []), c]);
  }
  const build = (parent: string | null, seen: Set<string>): TreeNode[] => (byParent.get(parent) ?? [])
    .sort(bySort((c) => c.collection))
    .filter((c) => !seen.has(c.collection))
    .map((c) => ({ collection: c, name: c.collection, children: build(c.collection, new Set([...seen, c.collection])) }));
  return build(null, new Set());
}

export function flatten(nodes: TreeNode[], depth = 0): { node: TreeNode; depth: number }[] {
  return nodes.flatMap((n) => [{ node: n, depth }, ...flatten(n.children, depth + 1)]);
}

export function findNode(nodes: TreeNode[], name: string): { node: TreeNode; parent: TreeNode | null; siblings: TreeNode[] } | null {
  const walk = (list: TreeNode[], parent: TreeNode | null): ReturnType<typeof findNode> => {
    for (const n of list) {
      if (n.name === name) return { node: n, parent, siblings: list };
      const inner = walk(n.children, n);
      if (inner) return inner;
    }
    return null;
  };
  return walk(nodes, null);
}

/** Whether `name` is `ancestor` or inside it (a collection can't be moved into itself). */
export function isWithin(nodes: TreeNode[], name: string, ancestor: string): boolean {
  const top = findNode(nodes, ancestor);
  if (!top) return false;
  return flatten([top.node]).some((x) => x.node.name === name);
}

/** The sort and group changes that put `name` at the placement: the new group's children numbered 1..n. */
export function moveChanges(nodes: TreeNode[], name: string, placement: Placement): { collection: string; meta: { sort: number; group: string | null } }[] | null {
  const moving = findNode(nodes, name);
  if (!moving) return null;
  let group: string | null;
  let list: string[];
  if (placement.where === 'inside') {
    if (isWithin(nodes, placement.target, name)) return null;
    const target = findNode(nodes, placement.target);
    if (!target) return null;
    group = placement.target;
    list = target.node.children.map((n) => n.name).filter((n) => n !== name);
    list.push(name);
  } else {
    if (placement.target === name) return null;
    const target = findNode(nodes, placement.target);
    if (!target) return null;
    if (target.parent && isWithin(nodes, target.parent.name, name)) return null;
    group = target.parent?.name ?? null;
    list = target.siblings.map((n) => n.name).filter((n) => n !== name);
    const at = list.indexOf(placement.target) + (placement.where === 'after' ? 1 : 0);
    list.splice(at, 0, name);
  }
  return list.map((c, i) => ({ collection: c, meta: { sort: i + 1, group } }));
}
