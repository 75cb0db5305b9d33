/** The permission editor: a policy's permissions as a matrix of collections (the project's own, then the system
 * collections in a group of their own) by actions (create, read, update, delete, share). Each cell says at a glance
 * whether the policy grants no access, all of it, or a custom part, and opens the cell's settings (row filter,
 * fields, validation, presets). A keyboard moves through the matrix with the arrow keys (one tab stop).
 *
 * Speed with a hundred collections and more: only the rows in view are drawn (the table is windowed); the rows are
 * memoised on a five-letter code of their cells' states, so saving a cell renders one row again, not the matrix; the
 * table lays out fixed; the system group is folded until asked for; and a search narrows the rows. */
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FocusEvent, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { requestList } from '../../api/client.ts';
import { titleOf, useAllFields, useCollections, useRelations, type Action, type Collection } from '../../content/schema.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import type { PermissionRow, PolicyRecord } from '../data.ts';
import {
  ACTION_LABEL, ACTIONS, CODE_STATE, detailOf, indexRows, keyOf, matrixCollections, rowCode, STATE_LABEL, type CellState,
} from './matrix.ts';
import { PermissionDialog } from './PermissionDialog.tsx';
import '../../content/list/list.css';

const ROW_FIELDS = ['id', 'policy', 'collection', 'action', 'fields', 'permissions', 'validation', 'presets'];

export default function PermissionEditor({ policy }: { policy: PolicyRecord }) {
  const collections = useCollections();
  const fields = useAllFields();
  const relations = useRelations();
  const rowsKey = ['access', 'permission-rows', policy.id];
  const rows = useQuery({
    queryKey: rowsKey,
    // A policy has at most one row per collection and action: bounded by the schema, read whole.
    queryFn: async ({ signal }) => (await requestList<PermissionRow>('/permissions', { filter: { policy: { _eq: policy.id } }, fields: ROW_FIELDS, limit: -1, sort: ['id'] }, signal)).data,
  });
  const failed = collections.error ?? fields.error ?? relations.error ?? rows.error;
  if (failed) {
    return <div className="page-body"><ErrorNotice error={failed} onRetry={() => { void collections.refetch(); void fields.refetch(); void relations.refetch(); void rows.refetch(); }} /></div>;
  }
  if (!collections.data || !fields.data || !relations.data || !rows.data) return <div className="page-body"><Loading label="Loading permissions" /></div>;
  return <Matrix policy={policy} collections={collections.data} rows={rows.data} reload={async () => { await rows.refetch(); }} />;
}

interface OpenCell { collection: string; action: Action }

function Matrix({ policy, collections, rows, reload }: { policy: PolicyRecord; collections: Collection[]; rows: PermissionRow[]; reload(): Promise<void> }) {
  const [search, setSearch] = useState('');
  const [showSystem, setShowSystem] = useState(false);
  const [open, setOpen] = useState<OpenCell | null>(null);
  const [status, setStatus] = useState('');
  const index = useMemo(() => indexRows(rows), [rows]);
  const groups = useMemo(() => matrixCollections(collections), [collections]);
  const term = search.trim().toLowerCase();
  const matches = useCallback((c: Collection) => !term || c.collection.toLowerCase().includes(term) || titleOf(c.collection).toLowerCase().includes(term), [term]);
  const own = useMemo(() => groups.own.filter(matches), [groups, matches]);
  const system = useMemo(() => groups.system.filter(matches), [groups, matches]);
  // While searching, matching system collections show without unfolding the group.
  const systemShown = showSystem || term !== '';
  const onOpen = useCallback((collection: string, action: Action) => setOpen({ collection, action }), []);
  const toggleSystem = useCallback(() => setShowSystem((s) => !s), []);
  const granted = useMemo(() => new Set(rows.map((r) => r.collection)).size, [rows]);

  return (
    <div className="page-body matrix-page">
      {policy.admin_access && <p className="notice">This policy is an administrator's: its users may do everything, whatever the matrix says.</p>}
      <div className="matrix-toolbar">
        <input type="search" aria-label="Find a collection" placeholder="Find a collection" value={search} onChange={(e) => setSearch(e.target.value)} />
        <span className="muted">{granted === 0 ? 'Nothing granted yet.' : `Grants access to ${granted} collection${granted === 1 ? '' : 's'}.`}</span>
        <label className="check-line">
          <input type="checkbox" checked={showSystem} onChange={toggleSystem} />
          Show system collections ({groups.system.length})
        </label>
        <span className="toolbar-spacer" />
        <span className="matrix-legend" aria-hidden="true">
          <span><Glyph state="none" /> No access</span>
          <span><Glyph state="all" /> All</span>
          <span><Glyph state="custom" /> Custom</span>
        </span>
      </div>
      <MatrixTable own={own} system={system} systemCount={groups.system.length} systemShown={systemShown} searching={term !== ''}
        index={index} onOpen={onOpen} policyName={policy.name} />
      <p className="visually-hidden" role="status">{status}</p>
      {open && (
        <PermissionDialog policy={policy} collection={open.collection} action={open.action} rows={index.get(keyOf(open.collection, open.action)) ?? []}
          onClose={() => setOpen(null)}
          onSaved={async (state) => {
            await reload();
            setStatus(`${titleOf(open.collection)}, ${open.action}: ${STATE_LABEL[state]}. Saved.`);
            setOpen(null);
          }} />
      )}
    </div>
  );
}

type Item = { kind: 'row'; collection: string; r: number } | { kind: 'group' } | { kind: 'empty' };

/** Rows drawn above and below the visible ones, so a quick scroll or a key press rarely meets a gap. */
const OVERSCAN = 10;
/** A row's height until the first drawn row has been measured. */
const ROW_GUESS = 35;

/** The table, memoised (opening a cell's dialog does not render it again) and windowed: only the rows in view (and a
 * few around them) are in the document, between two spacers of the others' height, so opening, searching and
 * scrolling cost the same with a hundred collections as with ten. The grid's one tab stop follows the keyboard and
 * the pointer; keys that reach a row out of view scroll it in first. */
const MatrixTable = memo(function MatrixTable({ own, system, systemCount, systemShown, searching, index, onOpen, policyName }: {
  own: Collection[];
  system: Collection[];
  systemCount: number;
  systemShown: boolean;
  searching: boolean;
  index: Map<string, PermissionRow[]>;
  onOpen(collection: string, action: Action): void;
  policyName: string;
}) {
  const wrap = useRef<HTMLDivElement>(null);
  const table = useRef<HTMLTableElement>(null);
  const [rowHeight, setRowHeight] = useState(ROW_GUESS);
  const [range, setRange] = useState({ start: 0, end: 40 });
  const [active, setActive] = useState({ r: 0, c: 0 });
  const focusPending = useRef(false);

  const items = useMemo<Item[]>(() => {
    const out: Item[] = own.length === 0 ? [{ kind: 'empty' }] : own.map((c, r) => ({ kind: 'row', collection: c.collection, r }));
    out.push({ kind: 'group' });
    if (systemShown) system.forEach((c, k) => out.push({ kind: 'row', collection: c.collection, r: own.length + k }));
    return out;
  }, [own, system, systemShown]);
  const dataRows = own.length + (systemShown ? system.length : 0);
  const itemOf = useCallback((r: number) => (r < own.length ? r : r + 1 + (own.length === 0 ? 1 : 0)), [own.length]);

  const measure = useCallback((): void => {
    const el = wrap.current;
    if (!el) return;
    const head = table.current?.tHead?.offsetHeight ?? rowHeight;
    const top = Math.max(0, el.scrollTop - head);
    const start = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
    const end = Math.min(items.length, Math.ceil((top + el.clientHeight) / rowHeight) + OVERSCAN);
    setRange((old) => (old.start === start && old.end === end ? old : { start, end }));
  }, [items.length, rowHeight]);

  useLayoutEffect(measure, [measure]);
  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    let frame = 0;
    const onScroll = (): void => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(measure);
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    const resize = new ResizeObserver(onScroll);
    resize.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      el.removeEventListener('scroll', onScroll);
      resize.disconnect();
    };
  }, [measure]);
  // The rows' real height, once one is drawn (the spacers are sized with it).
  useLayoutEffect(() => {
    const row = table.current?.querySelector<HTMLTableRowElement>('tr[data-row]');
    if (row && row.offsetHeight > 0 && row.offsetHeight !== rowHeight) setRowHeight(row.offsetHeight);
  });
  // The cell the keyboard moved to gets the focus once its row is drawn.
  useLayoutEffect(() => {
    if (!focusPending.current) return;
    focusPending.current = false;
    table.current?.querySelector<HTMLElement>(`[data-r="${active.r}"][data-c="${active.c}"]`)?.focus();
  }, [active, range]);

  // Showing the system collections brings their group up under the sticky header.
  const shownBefore = useRef(systemShown);
  useLayoutEffect(() => {
    if (systemShown && !shownBefore.current && !searching && wrap.current) wrap.current.scrollTop = Math.max(own.length, 1) * rowHeight;
    shownBefore.current = systemShown;
  }, [systemShown, searching, own.length, rowHeight]);

  /** Arrow keys, Home/End (with Ctrl: first/last row) and Page Up/Down move between cells. */
  const move = (e: KeyboardEvent<HTMLTableElement>): void => {
    const target = e.target as HTMLElement;
    const rr = Number(target.dataset.r);
    const cc = Number(target.dataset.c);
    if (target.dataset.r === undefined || Number.isNaN(rr) || Number.isNaN(cc)) return;
    let nr = rr;
    let nc = cc;
    const page = Math.max(1, Math.floor((wrap.current?.clientHeight ?? 400) / rowHeight) - 2);
    switch (e.key) {
      case 'ArrowRight': nc = Math.min(ACTIONS.length - 1, cc + 1); break;
      case 'ArrowLeft': nc = Math.max(0, cc - 1); break;
      case 'ArrowDown': nr = rr + 1; break;
      case 'ArrowUp': nr = rr - 1; break;
      case 'Home': nc = 0; if (e.ctrlKey) nr = 0; break;
      case 'End': nc = ACTIONS.length - 1; if (e.ctrlKey) nr = dataRows - 1; break;
      case 'PageDown': nr = rr + page; break;
      case 'PageUp': nr = rr - page; break;
      default: return;
    }
    e.preventDefault();
    nr = Math.max(0, Math.min(nr, dataRows - 1));
    if (nr === rr && nc === cc) return;
    const el = wrap.current;
    if (el) {
      const head = table.current?.tHead?.offsetHeight ?? rowHeight;
      const top = head + itemOf(nr) * rowHeight;
      if (top - head < el.scrollTop) el.scrollTop = top - head;
      else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
      measure();
    }
    focusPending.current = true;
    setActive({ r: nr, c: nc });
  };
  const onFocus = (e: FocusEvent<HTMLTableElement>): void => {
    const t = e.target as HTMLElement;
    if (t.dataset.r === undefined) return;
    const r = Number(t.dataset.r);
    const c = Number(t.dataset.c);
    if (r !== active.r || c !== active.c) setActive({ r, c });
  };

  const start = Math.min(range.start, Math.max(0, items.length - 1));
  const end = Math.min(range.end, items.length);
  const drawn = items.slice(start, end);
  // The tab stop is the active cell when it is drawn, else the first drawn cell.
  const activeDrawn = drawn.some((it) => it.kind === 'row' && it.r === active.r);
  const firstDrawn = drawn.find((it): it is Extract<Item, { kind: 'row' }> => it.kind === 'row')?.r ?? -1;
  const cols = ACTIONS.length + 1;

  return (
    <div className="matrix-wrap" ref={wrap}>
      <table ref={table} className="matrix" role="grid" aria-label={`Permissions of ${policyName}`} aria-rowcount={items.length + 1} onKeyDown={move} onFocus={onFocus}>
        <colgroup><col className="matrix-name-col" />{ACTIONS.map((a) => <col key={a} />)}</colgroup>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Collection</th>
            {ACTIONS.map((a) => <th key={a} scope="col">{ACTION_LABEL[a]}</th>)}
          </tr>
        </thead>
        <tbody>
          {start > 0 && <tr className="matrix-spacer" aria-hidden="true"><td colSpan={cols} style={{ height: start * rowHeight }} /></tr>}
          {drawn.map((it, k) => {
            const rowIndex = start + k + 2;
            if (it.kind === 'empty') {
              return <tr key="empty" aria-rowindex={rowIndex}><td colSpan={cols} className="matrix-empty">{searching ? 'No collection of the project matches.' : 'The project has no collections yet.'}</td></tr>;
            }
            if (it.kind === 'group') {
              return (
                <tr key="group" className="matrix-group" aria-rowindex={rowIndex}>
                  <td colSpan={cols}>
                    {searching ? `System collections (${system.length} matching)` : systemShown ? `System collections (${systemCount})`
                      : `System collections (${systemCount}) are hidden: tick “Show system collections” above.`}
                  </td>
                </tr>
              );
            }
            const code = rowCode(index, it.collection);
            const details = code.includes('c') ? ACTIONS.map((a, j) => (code[j] === 'c' ? detailOf(index.get(keyOf(it.collection, a)), a) : '')).join('\n') : '';
            const stop = activeDrawn ? (it.r === active.r ? active.c : -1) : (it.r === firstDrawn ? 0 : -1);
            return <MatrixRow key={it.collection} collection={it.collection} row={it.r} rowIndex={rowIndex} code={code} details={details} stop={stop} onOpen={onOpen} />;
          })}
          {end < items.length && <tr className="matrix-spacer" aria-hidden="true"><td colSpan={cols} style={{ height: (items.length - end) * rowHeight }} /></tr>}
        </tbody>
      </table>
    </div>
  );
});

/** One collection's row. Its props are plain values (the cells' states, the custom cells' summaries, where the tab
 * stop is), so it renders again only when one of its own changes. */
const MatrixRow = memo(function MatrixRow({ collection, row, rowIndex, code, details, stop, onOpen }: {
  collection: string;
  row: number;
  rowIndex: number;
  code: string;
  /** The column holding the grid's tab stop, or -1. */
  stop: number;
  /** The custom cells' summaries, one line per action. */
  details: string;
  onOpen(collection: string, action: Action): void;
}) {
  const label = titleOf(collection);
  const detail = details.split('\n');
  return (
    <tr data-row={row} aria-rowindex={rowIndex}>
      <th scope="row" className="matrix-name">
        <span className="matrix-title">{label}</span>
        <span className="matrix-key mono">{collection}</span>
      </th>
      {ACTIONS.map((action, c) => {
        const state = CODE_STATE[code[c]];
        return (
          <td key={action} className="matrix-cell">
            <button type="button" className={`cell cell-${state}`} tabIndex={c === stop ? 0 : -1} data-r={row} data-c={c}
              aria-label={`${label}: ${action}, ${STATE_LABEL[state]}`} aria-haspopup="dialog"
              title={state === 'custom' ? detail[c] : undefined}
              onClick={() => onOpen(collection, action)}>
              <Glyph state={state} />
              <span className="cell-word">{state === 'none' ? '' : state === 'all' ? 'All' : 'Custom'}</span>
            </button>
          </td>
        );
      })}
    </tr>
  );
});

function Glyph({ state }: { state: CellState }) {
  return <span className={`glyph glyph-${state}`} aria-hidden="true">{state === 'none' ? '—' : state === 'all' ? '✓' : '◐'}</span>;
}
