/** /content/:collection: the collection's items as a table. Server-side paging, sorting, search and filtering
 * (only the visible columns' fields are requested, so it stays fast on large collections), column choice, bulk
 * select with batch edit and delete, and the view kept per user in svc_presets: the default view is saved as the
 * user works and restored when they come back; bookmarks (?bookmark=<id>) open a named view.
 *
 * The list is live: a realtime subscription to the collection (the list's fields, filter and search) reads the
 * current page again, quietly (no busy state), a moment after items were created, updated or deleted by anyone;
 * the server's paging stays the authority. Selection, scroll position and what is being typed are kept; deleted
 * items leave the selection. Without realtime the list is read when the view changes, as before. */
import { useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { request, requestList } from '../../api/client.ts';
import { useLive, type LiveChange } from '../../api/live.ts';
import { messageOf } from '../../api/errors.ts';
import { useSession } from '../../app/session.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import {
  defaultPresetOf, useBookmarkActions, usePresets, useViewAutosave, viewOfPreset, type Preset, type SavedView,
} from '../presets.ts';
import {
  can, fieldsOf, primaryKeyOf, titleOf, useAllFields, useCollections, usePermissions, usePolicyGlobals, useRelations,
  type Collection,
} from '../schema.ts';
import { BatchEditDialog } from './BatchEditDialog.tsx';
import { ColumnChooser } from './ColumnChooser.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { Pager } from '../../ui/Pager.tsx';
import { FilterBuilder } from './FilterBuilder.tsx';
import { countConditions, fromApiFilter, toApiFilter, type GroupNode } from './filter.ts';
import { formatCell, formatCount, isNumeric } from './format.ts';
import {
  columnFields, columnOf, defaultColumns, editableFields, filterFields, requestFields, type Column, type Schema,
} from './model.ts';
import { useDebounced } from './useDebounced.ts';
import './list.css';


/** Loads what the list needs (schema, permissions, saved views) in parallel, then opens the view. */
export default function ListPage({ collection }: { collection: Collection }) {
  const collections = useCollections();
  const fields = useAllFields();
  const relations = useRelations();
  const perms = usePermissions();
  const globals = usePolicyGlobals();
  const presets = usePresets();
  const bookmarkParam = new URLSearchParams(useSearch()).get('bookmark');
  const bookmarkId = bookmarkParam && /^\d+$/.test(bookmarkParam) ? Number(bookmarkParam) : null;

  // One object per change of what it is built from, so the list's derived data (columns, filter paths) is reused.
  const schema = useMemo<Schema | null>(() => (collections.data && fields.data && relations.data && perms.data && globals.data
    ? { collections: collections.data, fields: fields.data, relations: relations.data, perms: perms.data, admin: globals.data.admin_access }
    : null), [collections.data, fields.data, relations.data, perms.data, globals.data]);

  const failed = collections.error ?? fields.error ?? relations.error ?? perms.error ?? globals.error;
  if (failed) {
    return (
      <div className="main-pane">
        <header className="page-header"><h1>{titleOf(collection.collection)}</h1></header>
        <div className="page-body">
          <ErrorNotice error={failed} onRetry={() => { void collections.refetch(); void fields.refetch(); void relations.refetch(); void perms.refetch(); void globals.refetch(); }} />
        </div>
      </div>
    );
  }
  if (!schema || presets.isPending) {
    return <div className="main-pane"><Loading label={`Loading ${titleOf(collection.collection)}`} /></div>;
  }
  const bookmark = bookmarkId !== null ? (presets.data ?? []).find((p) => p.id === bookmarkId && p.collection === collection.collection) ?? null : null;
  if (bookmarkId !== null && !bookmark && !presets.error) {
    return (
      <div className="main-pane">
        <header className="page-header"><h1>{titleOf(collection.collection)}</h1></header>
        <div className="page-body">
          <div className="notice" role="status">
            <span>This bookmark no longer exists.</span>
            <Link className="btn btn-small" href={`/${collection.collection}`}>Open {titleOf(collection.collection)}</Link>
          </div>
        </div>
      </div>
    );
  }
  return (
    <ListView
      key={`${collection.collection}|${bookmark?.id ?? ''}`}
      schema={schema}
      collection={collection}
      presets={presets.data}
      presetsError={presets.error}
      retryPresets={() => void presets.refetch()}
      bookmark={bookmark}
    />
  );
}

/** The view a list opens with: the bookmark, else the saved default, else the collection's defaults; fields that no
 * longer exist are dropped. */
function initialView(schema: Schema, collection: string, preset: Preset | null): SavedView {
  const saved = preset ? viewOfPreset(preset) : {};
  const available = new Set(columnFields(schema, collection).map((f) => f.field));
  const fields = (saved.fields ?? []).filter((f) => available.has(f));
  return {
    fields: fields.length > 0 ? fields : defaultColumns(schema, collection),
    sort: saved.sort ?? [],
    limit: saved.limit ?? 25,
    search: saved.search ?? '',
    filter: saved.filter ?? null,
  };
}

type Open = null | 'columns' | 'batch' | 'delete' | 'bookmark';

function ListView({ schema, collection, presets, presetsError, retryPresets, bookmark }: {
  schema: Schema;
  collection: Collection;
  presets: Preset[] | undefined;
  presetsError: unknown;
  retryPresets(): void;
  bookmark: Preset | null;
}) {
  const name = collection.collection;
  const title = titleOf(name);
  const { me } = useSession();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const ownDefault = defaultPresetOf(presets, name, me?.id);
  const [initial] = useState(() => initialView(schema, name, bookmark ?? ownDefault));

  const [fields, setFields] = useState(initial.fields);
  const [sort, setSort] = useState(initial.sort);
  const [limit, setLimit] = useState(initial.limit);
  const [searchText, setSearchText] = useState(initial.search);
  const [tree, setTree] = useState<GroupNode>(() => fromApiFilter(initial.filter));
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [open, setOpen] = useState<Open>(null);
  const [filterOpen, setFilterOpen] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const allFields = useMemo(() => fieldsOf(schema.fields, name), [schema, name]);
  const pk = primaryKeyOf(allFields);
  const filterOptions = useMemo(() => filterFields(schema, name), [schema, name]);
  const fieldType = (path: string): string | undefined => filterOptions.find((f) => f.path === path)?.type;
  const columns: Column[] = useMemo(() => fields
    .map((f) => allFields.find((x) => x.field === f))
    .filter((f): f is NonNullable<typeof f> => Boolean(f))
    .map((f) => columnOf(schema, name, f)), [fields, allFields, schema, name]);

  const search = useDebounced(searchText.trim(), 300);
  const filterJson = JSON.stringify(toApiFilter(tree, fieldType));
  const appliedFilterJson = useDebounced(filterJson, 300);
  const filter = JSON.parse(appliedFilterJson) as Record<string, unknown> | null;

  // A new query starts at its first page, with nothing selected.
  const queryShape = JSON.stringify([sort, limit, search, appliedFilterJson]);
  const [lastShape, setLastShape] = useState(queryShape);
  if (lastShape !== queryShape) {
    setLastShape(queryShape);
    if (page !== 1) setPage(1);
    if (selected.size > 0) setSelected(new Set());
  }

  const query = {
    fields: requestFields(columns, pk),
    sort: sort.length > 0 ? sort : undefined,
    limit,
    page,
    search: search || undefined,
    filter: filter ?? undefined,
    meta: 'total_count,filter_count',
  };
  const items = useQuery({
    queryKey: ['items', name, 'list', query],
    queryFn: ({ signal }) => requestList<Record<string, unknown>>(`/items/${name}`, query, signal),
    placeholderData: keepPreviousData,
  });

  // Live: the same rows as the list, page included: creates and updates of any matching row arrive whatever the
  // page, and the server sends a delete only to a subscription that was sent the row, so the subscription's first
  // answer must hold the rows this page shows (docs/realtime.md > Permissions).
  // (useLive compares specs as JSON: a new object per render is the same subscription.)
  const liveSpec = {
    collection: name,
    query: {
      fields: query.fields, ...(query.filter ? { filter: query.filter } : {}), ...(query.search ? { search: query.search } : {}),
      ...(query.sort ? { sort: query.sort } : {}), limit: query.limit, page: query.page,
    },
  };
  // The query a live change is reading again: its fetch is not shown as busy.
  const [quietKey, setQuietKey] = useState<string | null>(null);
  const queryJson = JSON.stringify(query);
  useLive(liveSpec, (change: LiveChange) => {
    if (change.deleted.length > 0) {
      setSelected((s) => {
        if (!change.deleted.some((k) => s.has(k))) return s;
        const next = new Set(s);
        for (const k of change.deleted) next.delete(k);
        return next;
      });
    }
    setQuietKey(queryJson);
    void queryClient.invalidateQueries({ queryKey: ['items', name, 'list'] }).finally(() => {
      setQuietKey((k) => (k === queryJson ? null : k));
    });
  }, { debounceMs: 400 });
  const busy = items.isFetching && quietKey !== queryJson;

  const view: SavedView = { fields, sort, limit, search, filter };
  const autosave = useViewAutosave({
    collection: name,
    view,
    initial,
    presetId: ownDefault && ownDefault.user === me?.id ? ownDefault.id : null,
    enabled: !bookmark && !presetsError,
    canCreate: can(schema.perms, schema.admin, 'svc_presets', 'create'),
    // The default view written here is always the caller's own, which the server lets them change (own presets).
    canUpdate: true,
  });
  const bookmarkActions = useBookmarkActions();
  // A bookmark is not changed by working with it: "Update bookmark" writes the changes, "Discard changes" goes back.
  const [baseline, setBaseline] = useState(initial);
  const bookmarkDirty = bookmark !== null && JSON.stringify(view) !== JSON.stringify(baseline);
  const applyView = (v: SavedView): void => {
    setFields(v.fields);
    setSort(v.sort);
    setLimit(v.limit);
    setSearchText(v.search);
    setTree(fromApiFilter(v.filter));
  };
  const ownBookmark = bookmark !== null && bookmark.user === me?.id;

  const canCreate = can(schema.perms, schema.admin, name, 'create');
  const canUpdate = can(schema.perms, schema.admin, name, 'update');
  const canDelete = can(schema.perms, schema.admin, name, 'delete');
  const editable = useMemo(() => editableFields(schema, name), [schema, name]);
  const selectable = (canUpdate && editable.length > 0) || canDelete;

  const rows = items.data?.data ?? [];
  const keyOf = (row: Record<string, unknown>): string => String(row[pk]);
  const filtered = items.data?.meta.filter_count ?? 0;
  const total = items.data?.meta.total_count ?? filtered;
  const pages = Math.max(1, Math.ceil(filtered / limit));
  useEffect(() => {
    if (items.data && page > pages) setPage(pages);
  }, [items.data, page, pages]);

  const conditions = countConditions(tree);
  const narrowed = Boolean(search) || filter !== null;
  const firstColumn = columns[0];
  const rowName = (row: Record<string, unknown>): string => {
    const text = firstColumn ? formatCell(firstColumn, row[firstColumn.field.field]) : '';
    return text || `item ${keyOf(row)}`;
  };

  const sortBy = (column: Column, add: boolean): void => {
    const key = column.sortKey;
    if (!key) return;
    const current = sort.find((s) => s.replace(/^-/, '') === key);
    const next = current === key ? `-${key}` : key;
    if (add && sort.length > 0) setSort(current ? sort.map((s) => (s === current ? next : s)) : [...sort, next]);
    else setSort([next]);
  };

  const toggle = (key: string): void => setSelected((s) => {
    const next = new Set(s);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    return next;
  });
  const pageKeys = rows.map(keyOf);
  const allOnPage = pageKeys.length > 0 && pageKeys.every((k) => selected.has(k));
  const someOnPage = pageKeys.some((k) => selected.has(k));
  const selectAll = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (selectAll.current) selectAll.current.indeterminate = someOnPage && !allOnPage;
  }, [someOnPage, allOnPage]);
  const selectedKeys = (): (string | number)[] => {
    const numeric = ['integer', 'bigInteger'].includes(allFields.find((f) => f.field === pk)?.type ?? '');
    return [...selected].map((k) => (numeric && /^\d+$/.test(k) ? Number(k) : k));
  };

  const openRow = (e: MouseEvent<HTMLTableRowElement>, key: string): void => {
    const target = e.target as HTMLElement;
    if (target.closest('a, button, input, select, label, textarea')) return;
    if (window.getSelection()?.toString()) return;
    navigate(`/${name}/${encodeURIComponent(key)}`);
  };

  const refresh = (): void => {
    void queryClient.invalidateQueries({ queryKey: ['items', name] });
  };

  const resetView = (): void => {
    setSearchText('');
    setTree(fromApiFilter(null));
    setSort([]);
  };

  const from = filtered === 0 ? 0 : (page - 1) * limit + 1;
  const to = Math.min(filtered, page * limit);
  const related: Record<string, string> = {};
  for (const f of columnFields(schema, name)) {
    const c = columnOf(schema, name, f);
    if (c.related) related[f.field] = titleOf(c.related);
  }

  return (
    <div className="main-pane list-page">
      <header className="page-header">
        <h1>
          {title}
          {bookmark && <span className="list-bookmark-title"> · {bookmark.bookmark}</span>}
        </h1>
        <SaveState status={autosave.status} retry={autosave.retry} />
        {bookmarkDirty && (
          <>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => applyView(baseline)}
              title="Go back to the bookmark as it was saved">Discard changes</button>
            {ownBookmark && (
              <button type="button" className="btn btn-small" disabled={bookmarkActions.save.isPending}
                onClick={() => { const saved = view; bookmarkActions.save.mutate({ id: bookmark!.id, view: saved }, { onSuccess: () => setBaseline(saved) }); }}>
                Update bookmark
              </button>
            )}
          </>
        )}
        {bookmarkActions.save.error ? <span className="save-state error" role="status">{messageOf(bookmarkActions.save.error)}</span> : null}
        {canCreate && <Link className="btn btn-primary" href={`/${name}/+`}>Create item</Link>}
      </header>

      <div className="toolbar list-toolbar" role="toolbar" aria-label={`${title} view`}>
        <input type="search" aria-label={`Search ${title}`} placeholder="Search…" value={searchText} onChange={(e) => setSearchText(e.target.value)} />
        <button type="button" className={`btn${filterOpen ? ' btn-pressed' : ''}`} aria-expanded={filterOpen} aria-controls="list-filter" onClick={() => setFilterOpen((o) => !o)}>
          Filter{conditions > 0 && <span className="badge list-count-badge">{conditions}</span>}
        </button>
        <button type="button" className="btn" onClick={() => setOpen('columns')}>Columns</button>
        {can(schema.perms, schema.admin, 'svc_presets', 'create') && <button type="button" className="btn btn-ghost" onClick={() => setOpen('bookmark')}>Save as bookmark</button>}
        <span className="toolbar-spacer" />
        {selected.size > 0 && (
          <div className="selection-bar" role="group" aria-label="Selected items">
            <span className="selection-count" aria-hidden="true">{formatCount(selected.size)} selected</span>
            {canUpdate && editable.length > 0 && (
              <button type="button" className="btn btn-small" onClick={() => setOpen('batch')}>Edit<span className="visually-hidden"> {selected.size} selected</span></button>
            )}
            {canDelete && (
              <button type="button" className="btn btn-small btn-danger" onClick={() => setOpen('delete')}>Delete<span className="visually-hidden"> {selected.size} selected</span></button>
            )}
            <button type="button" className="btn btn-small btn-ghost icon-btn" aria-label="Clear selection" title="Clear selection" onClick={() => setSelected(new Set())}>✕</button>
          </div>
        )}
      </div>

      {filterOpen && (
        <section id="list-filter" className="list-filter" aria-label="Filter">
          <FilterBuilder root={tree} fields={filterOptions} onChange={setTree} collectionLabel={title}
            onClear={conditions > 0 ? () => setTree(fromApiFilter(null)) : undefined} />
        </section>
      )}

      <div className="page-body list-body">
        {presetsError ? <ErrorNotice error={presetsError} title="Your saved views could not be loaded; changes to this view are not saved." onRetry={retryPresets} /> : null}
        {notice && (
          <div className="notice notice-success list-notice" role="status">
            <span>{notice}</span>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => setNotice(null)}>Dismiss</button>
          </div>
        )}
        {items.error ? (
          <div className="list-error">
            <ErrorNotice error={items.error} onRetry={() => void items.refetch()} />
            {(narrowed || sort.length > 0) && <button type="button" className="btn btn-small" onClick={resetView}>Clear search, filter and sort</button>}
          </div>
        ) : null}
        <div className="table-wrap list-table" aria-busy={busy}>
          <table className="grid">
            <caption className="visually-hidden">{title}{bookmark ? `, bookmark ${bookmark.bookmark}` : ''}</caption>
            <thead>
              <tr>
                {selectable && (
                  <th scope="col" className="select">
                    <input ref={selectAll} type="checkbox" aria-label="Select all items on this page" checked={allOnPage} disabled={rows.length === 0}
                      onChange={() => setSelected((s) => {
                        const next = new Set(s);
                        for (const k of pageKeys) if (allOnPage) next.delete(k); else next.add(k);
                        return next;
                      })} />
                  </th>
                )}
                {columns.map((c) => {
                  const i = c.sortKey ? sort.findIndex((s) => s.replace(/^-/, '') === c.sortKey) : -1;
                  const dir = i >= 0 ? (sort[i].startsWith('-') ? 'descending' : 'ascending') : null;
                  return (
                    <th key={c.field.field} scope="col" aria-sort={i === 0 && dir ? dir : c.sortKey ? 'none' : undefined} className={isNumeric(c) ? 'list-num' : undefined}>
                      {c.sortKey ? (
                        <button type="button" onClick={(e) => sortBy(c, e.shiftKey)} title="Sort (shift-click adds a secondary sort)">
                          <span>{c.label}</span>
                          <span aria-hidden="true" className={dir ? 'sort-mark on' : 'sort-mark'}>{dir === 'descending' ? '↓' : '↑'}{i > 0 ? i + 1 : ''}</span>
                          {i > 0 && dir && <span className="visually-hidden">, sort {i + 1}, {dir}</span>}
                        </button>
                      ) : c.label}
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {!items.data && !items.error && (
                <tr className="list-placeholder"><td colSpan={columns.length + (selectable ? 1 : 0)}><Loading label={`Loading ${title}`} /></td></tr>
              )}
              {items.data && rows.length === 0 && (
                <tr className="list-placeholder">
                  <td colSpan={columns.length + (selectable ? 1 : 0)}>
                    <div className="list-empty">
                      {narrowed ? <p>No items match {search ? 'this search' : ''}{search && filter ? ' and ' : ''}{filter ? 'this filter' : ''}.</p>
                        : <p>{title} has no items yet.</p>}
                      {!narrowed && canCreate && <Link className="btn btn-primary" href={`/${name}/+`}>Create the first item</Link>}
                    </div>
                  </td>
                </tr>
              )}
              {rows.map((row) => {
                const key = keyOf(row);
                const isSelected = selected.has(key);
                return (
                  <tr key={key} aria-selected={selectable ? isSelected : undefined} onClick={(e) => openRow(e, key)} className="list-row">
                    {selectable && (
                      <td className="select">
                        <input type="checkbox" aria-label={`Select ${rowName(row)}`} checked={isSelected} onChange={() => toggle(key)} />
                      </td>
                    )}
                    {columns.map((c, ci) => {
                      const text = formatCell(c, row[c.field.field]);
                      return (
                        <td key={c.field.field} className={isNumeric(c) ? 'list-num' : undefined} title={text.length > 40 ? text : undefined}>
                          {ci === 0 ? (
                            <Link className="row-link" href={`/${name}/${encodeURIComponent(key)}`}>
                              {text || <span className="muted"><span aria-hidden="true">—</span><span className="visually-hidden">Item {key}</span></span>}
                            </Link>
                          ) : text}
                        </td>
                      );
                    })}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>

        <Pager page={page} pages={pages} onPage={setPage} limit={limit} onLimit={setLimit} summary={
          items.data && filtered === 0 ? (
            <>
              {narrowed ? 'No matching items' : 'No items'}
              {narrowed && <span className="muted"> (of {formatCount(total)})</span>}
            </>
          ) : items.data ? (
            <>
              {formatCount(from)}–{formatCount(to)} of {formatCount(filtered)}
              {narrowed && total !== filtered && <span className="muted"> (filtered from {formatCount(total)})</span>}
            </>
          ) : '\u00a0'} />
      </div>

      {open === 'columns' && (
        <ColumnChooser fields={columnFields(schema, name)} chosen={fields} related={related} onChange={setFields} onClose={() => setOpen(null)} />
      )}
      {open === 'batch' && (
        <BatchEditDialog schema={schema} collection={name} keys={selectedKeys()} fields={editable} onClose={() => setOpen(null)}
          onDone={() => {
            setNotice(`${formatCount(selected.size)} ${selected.size === 1 ? 'item' : 'items'} updated.`);
            setOpen(null);
            setSelected(new Set());
            refresh();
          }} />
      )}
      {open === 'delete' && (
        <DeleteDialog collection={name} keys={selectedKeys()} onClose={() => setOpen(null)}
          onDone={(n) => {
            setNotice(`${formatCount(n)} ${n === 1 ? 'item' : 'items'} deleted.`);
            setOpen(null);
            setSelected(new Set());
            refresh();
          }} />
      )}
      {open === 'bookmark' && (
        <BookmarkDialog title={title} onClose={() => setOpen(null)}
          onSave={(bookmarkName) => bookmarkActions.create.mutateAsync({ collection: name, name: bookmarkName, view }).then((row) => {
            setOpen(null);
            navigate(`/${name}?bookmark=${row.id}`);
          })} />
      )}
    </div>
  );
}

function SaveState({ status, retry }: { status: ReturnType<typeof useViewAutosave>['status']; retry(): void }) {
  if (status.state === 'not-allowed') return <span className="save-state" role="status" title="Your role may not change saved views">View not saved</span>;
  if (status.state === 'error') {
    return (
      <span className="save-state error" role="status">
        View not saved: {messageOf(status.error)}
        <button type="button" className="btn btn-small btn-ghost" onClick={retry}>Try again</button>
      </span>
    );
  }
  return null;
}

function DeleteDialog({ collection, keys, onClose, onDone }: { collection: string; keys: (string | number)[]; onClose(): void; onDone(n: number): void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const n = keys.length;
  const noun = `${formatCount(n)} ${n === 1 ? 'item' : 'items'}`;
  const run = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await request('DELETE', `/items/${collection}`, { body: keys });
      onDone(n);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Delete ${noun}?`} onClose={onClose}
      footer={(
        <>
          <button type="button" className="btn" onClick={onClose} data-autofocus>Cancel</button>
          <button type="button" className="btn btn-danger" disabled={busy} onClick={() => void run()}>{busy ? 'Deleting…' : `Delete ${noun}`}</button>
        </>
      )}>
      <p>This deletes {noun} of {titleOf(collection)}. It cannot be undone.</p>
      {error ? <ErrorNotice error={error} /> : null}
    </Dialog>
  );
}

function BookmarkDialog({ title, onClose, onSave }: { title: string; onClose(): void; onSave(name: string): Promise<void> }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (): Promise<void> => {
    if (!name.trim()) {
      setError(new Error('Give the bookmark a name.'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSave(name.trim());
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Dialog title="Save as bookmark" onClose={onClose} onSubmit={() => void submit()}
      footer={(
        <>
          <button type="button" className="btn" onClick={onClose}>Cancel</button>
          <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : 'Save bookmark'}</button>
        </>
      )}>
      <p className="muted">The bookmark keeps this view of {title}: its columns, sort, search and filter. It is listed under {title} on the left.</p>
      <div className="field">
        <label htmlFor="bookmark-name">Bookmark name</label>
        <input id="bookmark-name" value={name} maxLength={255} onChange={(e) => setName(e.target.value)} data-autofocus
          aria-invalid={error ? true : undefined} aria-describedby={error ? 'bookmark-error' : undefined} />
      </div>
      {error ? <p className="field-error" id="bookmark-error" role="alert">{messageOf(error)}</p> : null}
    </Dialog>
  );
}
