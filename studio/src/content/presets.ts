/** Saved views (svc_presets through /presets): the caller's default view per collection (the row with no
 * bookmark) and named bookmarks. One request reads every preset that applies to the caller (own rows, and global
 * ones for the caller's role or for everyone); writes update that cached list in place. The default view is
 * written a moment after the user stops changing it, one write at a time; a failed write keeps the view on screen
 * and reports quietly. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { useSession } from '../app/session.tsx';

export interface Preset {
  id: number;
  bookmark: string | null;
  user: string | null;
  role: string | null;
  collection: string;
  layout: string | null;
  layout_query: { tabular?: { fields?: string[]; sort?: string[] | string; limit?: number } } | null;
  layout_options: Record<string, unknown> | null;
  filter: Record<string, unknown> | null;
  search: string | null;
  icon: string | null;
  color: string | null;
}

/** What a saved view holds: the list's columns, sort, page size, search and filter. */
export interface SavedView {
  fields: string[];
  sort: string[];
  limit: number;
  search: string;
  filter: Record<string, unknown> | null;
}

const FIELDS = ['id', 'bookmark', 'user', 'role', 'collection', 'layout', 'layout_query', 'layout_options', 'filter', 'search', 'icon', 'color'];

/** One cache entry: the query cache is cleared when the user signs out, so it never holds another user's presets. */
export function presetsKey(): unknown[] {
  return ['presets'];
}

/** Every preset that applies to the signed-in user, oldest first. The filter names the caller through $CURRENT_USER
 * and $CURRENT_ROLE, so the request needs no answer from GET /users/me and starts with it (../app/prefetch.ts). */
export const presetsQuery = queryOptions({
  queryKey: presetsKey(),
  staleTime: Infinity,
  queryFn: ({ signal }) => request<Preset[]>('GET', '/presets', {
    signal,
    query: {
      fields: FIELDS,
      limit: -1,
      sort: 'id',
      filter: {
        _or: [
          { user: { _eq: '$CURRENT_USER' } },
          // $CURRENT_ROLE is null for a user without a role: `role is null`, as the branch beside it.
          { _and: [{ user: { _null: true } }, { _or: [{ role: { _null: true } }, { role: { _eq: '$CURRENT_ROLE' } }] }] },
        ],
      },
    },
  }),
});

export function usePresets() {
  const { me } = useSession();
  return useQuery({ ...presetsQuery, enabled: Boolean(me) });
}

/** The view a collection opens with: the user's own default, else one for the user's role, else one for all. */
export function defaultPresetOf(presets: Preset[] | undefined, collection: string, userId: string | undefined): Preset | null {
  const defaults = (presets ?? []).filter((p) => p.collection === collection && p.bookmark === null);
  return defaults.find((p) => p.user === userId) ?? defaults.find((p) => p.user === null && p.role !== null)
    ?? defaults.find((p) => p.user === null) ?? null;
}

export function bookmarksOf(presets: Preset[] | undefined, collection: string): Preset[] {
  return (presets ?? []).filter((p) => p.collection === collection && p.bookmark !== null);
}

/** The parts of a saved view a preset holds (missing parts left out). */
export function viewOfPreset(p: Preset): Partial<SavedView> {
  const tab = p.layout_query?.tabular ?? {};
  const out: Partial<SavedView> = {};
  if (Array.isArray(tab.fields)) out.fields = tab.fields.filter((f): f is string => typeof f === 'string');
  if (Array.isArray(tab.sort)) out.sort = tab.sort.filter((s): s is string => typeof s === 'string');
  else if (typeof tab.sort === 'string' && tab.sort) out.sort = tab.sort.split(',');
  if (typeof tab.limit === 'number' && tab.limit > 0) out.limit = tab.limit;
  if (typeof p.search === 'string') out.search = p.search;
  if (p.filter && typeof p.filter === 'object') out.filter = p.filter;
  return out;
}

function payloadOf(view: SavedView): Partial<Preset> {
  return {
    layout: 'tabular',
    layout_query: { tabular: { fields: view.fields, sort: view.sort, limit: view.limit } },
    layout_options: { tabular: {} },
    filter: view.filter,
    search: view.search || null,
  };
}

function idOf(answer: unknown): number {
  if (typeof answer === 'number') return answer;
  if (answer && typeof answer === 'object' && 'id' in answer) return Number((answer as { id: unknown }).id);
  throw new Error('The server did not say which preset it created.');
}

export type SaveStatus = { state: 'idle' } | { state: 'saving' } | { state: 'error'; error: unknown } | { state: 'not-allowed' };

/** Keeps the collection's default view saved: `view` is written (POST the first time, PATCH after) a moment after
 * it last changed; one write at a time, the newest view wins; pending changes are sent when the list is left or
 * the page is closed. `initial` is the view as it was loaded (not written back). */
export function useViewAutosave(opts: {
  collection: string;
  view: SavedView;
  initial: SavedView;
  presetId: number | null;
  enabled: boolean;
  canCreate: boolean;
  canUpdate: boolean;
  delayMs?: number;
}): { status: SaveStatus; retry(): void } {
  const { me } = useSession();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<SaveStatus>({ state: 'idle' });
  const id = useRef<number | null>(opts.presetId);
  const saved = useRef(JSON.stringify(opts.initial));
  const pending = useRef<SavedView | null>(null);
  const busy = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(opts);
  latest.current = opts;

  const flush = useCallback(async (): Promise<void> => {
    clearTimeout(timer.current);
    if (busy.current || !pending.current || !me) return;
    const view = pending.current;
    const key = JSON.stringify(view);
    if (key === saved.current) {
      pending.current = null;
      return;
    }
    const { collection, canCreate, canUpdate } = latest.current;
    if (id.current === null ? !canCreate : !canUpdate) {
      setStatus({ state: 'not-allowed' });
      return;
    }
    pending.current = null;
    busy.current = true;
    setStatus({ state: 'saving' });
    let failed = false;
    try {
      let row: Preset;
      if (id.current === null) {
        const body = { collection, user: me.id, bookmark: null, ...payloadOf(view) };
        id.current = idOf(await request('POST', '/presets', { body, query: { fields: ['id'] } }));
        row = { id: id.current, role: null, icon: null, color: null, ...body } as Preset;
      } else {
        await request('PATCH', `/presets/${id.current}`, { body: payloadOf(view), query: { fields: ['id'] } });
        row = { id: id.current, collection, user: me.id, bookmark: null, role: null, icon: null, color: null, ...payloadOf(view) } as Preset;
      }
      saved.current = key;
      queryClient.setQueryData<Preset[]>(presetsKey(), (list) => {
        const rest = (list ?? []).filter((p) => p.id !== row.id);
        return [...rest, row].sort((a, b) => a.id - b.id);
      });
      setStatus({ state: 'idle' });
    } catch (error) {
      // The view stays as it is on screen; the next change or "Try again" writes it.
      pending.current ??= view;
      failed = true;
      setStatus({ state: 'error', error });
    } finally {
      busy.current = false;
    }
    // A view that changed during the write goes next; after a failure, only the user's next change or "Try again".
    if (!failed && pending.current && JSON.stringify(pending.current) !== saved.current) {
      timer.current = setTimeout(() => void flush(), 50);
    }
  }, [me, queryClient]);

  const viewKey = JSON.stringify(opts.view);
  useEffect(() => {
    if (!opts.enabled) return;
    if (viewKey === saved.current && !busy.current) {
      pending.current = null;
      clearTimeout(timer.current);
      return;
    }
    pending.current = latest.current.view;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void flush(), opts.delayMs ?? 600);
  }, [viewKey, opts.enabled, opts.delayMs, flush]);

  // Leaving the list writes what is pending; closing the page sends it with keepalive.
  useEffect(() => {
    const onHide = (): void => {
      const view = pending.current;
      if (!view || !me || JSON.stringify(view) === saved.current || busy.current) return;
      const { collection, canCreate, canUpdate } = latest.current;
      const body = id.current === null ? { collection, user: me.id, bookmark: null, ...payloadOf(view) } : payloadOf(view);
      if (id.current === null ? !canCreate : !canUpdate) return;
      void fetch(id.current === null ? '/presets' : `/presets/${id.current}`, {
        method: id.current === null ? 'POST' : 'PATCH', keepalive: true, credentials: 'same-origin',
        headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
      }).catch(() => {});
      pending.current = null;
    };
    addEventListener('pagehide', onHide);
    return () => {
      removeEventListener('pagehide', onHide);
      void flush();
    };
  }, [flush, me]);

  const retry = useCallback(() => {
    pending.current ??= latest.current.view;
    void flush();
  }, [flush]);
  return { status, retry };
}

/** Creates, renames and deletes bookmarks, keeping the cached preset list in step. */
export function useBookmarkActions() {
  const { me } = useSession();
  const queryClient = useQueryClient();
  const key = presetsKey();
  const update = (fn: (list: Preset[]) => Preset[]): void => {
    queryClient.setQueryData<Preset[]>(key, (list) => fn(list ?? []));
  };
  const create = useMutation({
    mutationFn: async ({ collection, name, view }: { collection: string; name: string; view: SavedView }) => {
      const body = { collection, user: me!.id, bookmark: name, ...payloadOf(view) };
      const id = idOf(await request('POST', '/presets', { body, query: { fields: ['id'] } }));
      return { id, role: null, icon: 'bookmark', color: null, ...body } as Preset;
    },
    onSuccess: (row) => update((list) => [...list, row]),
  });
  const rename = useMutation({
    mutationFn: async ({ id, name }: { id: number; name: string }) => {
      await request('PATCH', `/presets/${id}`, { body: { bookmark: name }, query: { fields: ['id'] } });
      return { id, name };
    },
    onSuccess: ({ id, name }) => update((list) => list.map((p) => (p.id === id ? { ...p, bookmark: name } : p))),
  });
  const save = useMutation({
    mutationFn: async ({ id, view }: { id: number; view: SavedView }) => {
      await request('PATCH', `/presets/${id}`, { body: payloadOf(view), query: { fields: ['id'] } });
      return { id, view };
    },
    onSuccess: ({ id, view }) => update((list) => list.map((p) => (p.id === id ? { ...p, ...payloadOf(view) } : p))),
  });
  const remove = useMutation({
    mutationFn: async ({ id }: { id: number }) => {
      await request('DELETE', `/presets/${id}`);
      return id;
    },
    onSuccess: (id) => update((list) => list.filter((p) => p.id !== id)),
  });
  return { create, rename, save, remove };
}
