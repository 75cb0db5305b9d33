/** svc_folders through /folders: the list (every folder, nested by `parent` in the browser), and the tree helpers. */
import { useQuery } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import type { FolderRecord } from './types.ts';

export function useFolders() {
  return useQuery({
    queryKey: ['folders'],
    queryFn: ({ signal }) => request<FolderRecord[]>('GET', '/folders', { query: { fields: ['id', 'name', 'parent'], sort: 'name', limit: -1 }, signal }),
  });
}

export interface FolderNode extends FolderRecord {
  children: FolderNode[];
  depth: number;
}

/** Folders as a tree, children by name. A parent the caller can't see puts the folder at the top. */
export function folderTree(folders: FolderRecord[]): FolderNode[] {
  const nodes = new Map<string, FolderNode>(folders.map((f) => [f.id, { ...f, children: [], depth: 0 }]));
  const roots: FolderNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parent ? nodes.get(node.parent) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const byName = (a: FolderNode, b: FolderNode) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });
  const visit = (list: FolderNode[], depth: number, seen: Set<string>) => {
    list.sort(byName);
    for (const n of list) {
      if (seen.has(n.id)) continue;
      seen.add(n.id);
      n.depth = depth;
      visit(n.children, depth + 1, seen);
    }
  };
  visit(roots, 0, new Set());
  return roots;
}

/** The chain of folders from the top down to `id` (inclusive). */
export function folderPath(folders: FolderRecord[] | undefined, id: string | null): FolderRecord[] {
  if (!folders || !id) return [];
  const byId = new Map(folders.map((f) => [f.id, f]));
  const out: FolderRecord[] = [];
  const seen = new Set<string>();
  let at = byId.get(id);
  while (at && !seen.has(at.id)) {
    seen.add(at.id);
    out.unshift(at);
    at = at.parent ? byId.get(at.parent) : undefined;
  }
  return out;
}

/** Folder options for a select, indented by depth. */
export function folderOptions(folders: FolderRecord[] | undefined): { id: string; label: string }[] {
  const out: { id: string; label: string }[] = [];
  const walk = (list: FolderNode[]) => {
    for (const n of list) {
      out.push({ id: n.id, label: `${'\u00a0\u00a0'.repeat(n.depth)}${n.name}` });
      walk(n.children);
    }
  };
  walk(folderTree(folders ?? []));
  return out;
}
