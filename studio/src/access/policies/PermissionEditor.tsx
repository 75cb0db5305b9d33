/** The permission editor: a policy's permissions as a matrix of collections (the project's own, then the system
 * collections in a group of their own) by actions (create, read, update, delete, share). Each cell says at a glance
 * whether the policy grants no access, all of it, or a custom part, and opens the cell's settings (row filter,
 * fields, validation, presets). A keyboard moves through the matrix with the arrow keys (one tab stop).
 *
 * Speed with a hundred collections and more: the rows are memoised on a five-letter code of their cells' states, so
 * opening a cell or saving one re-renders one row, not the matrix; the table lays out fixed; the system group is
 * folded until asked for; and a search narrows the rows. */
import { memo, useCallback, useMemo, useRef, useState, type KeyboardEvent } from 'react';
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
        <span className="toolbar-spacer" />
        <span className="matrix-legend" aria-hidden="true">
          <span><Glyph state="none" /> No access</span>
          <span><Glyph state="all" /> All</span>
          <span><Glyph state="custom" /> Custom</span>
        </span>
      </div>
      <MatrixTable own={own} system={system} systemCount={groups.system.length} systemShown={systemShown} searching={term !== ''}
        onToggleSystem={toggleSystem} index={index} onOpen={onOpen} policyName={policy.name} />
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

/** The table, memoised: opening a cell's dialog does not render it again. */
const MatrixTable = memo(function MatrixTable({ own, system, systemCount, systemShown, searching, onToggleSystem, index, onOpen, policyName }: {
  own: Collection[];
  system: Collection[];
  systemCount: number;
  systemShown: boolean;
  searching: boolean;
  onToggleSystem(): void;
  index: Map<string, PermissionRow[]>;
  onOpen(collection: string, action: Action): void;
  policyName: string;
}) {
  const table = useRef<HTMLTableElement>(null);
  let r = 0;
  const row = (c: Collection) => {
    const i = r++;
    const code = rowCode(index, c.collection);
    const details = code.includes('c') ? ACTIONS.map((a, k) => (code[k] === 'c' ? detailOf(index.get(keyOf(c.collection, a)), a) : '')).join('\n') : '';
    return <MatrixRow key={c.collection} collection={c.collection} row={i} code={code} details={details} onOpen={onOpen} />;
  };
  const ownRows = own.map(row);
  const systemRows = systemShown ? system.map(row) : [];

  /** Arrow keys, Home/End and Page Up/Down move between cells; the cell left holds the one tab stop. */
  const move = (e: KeyboardEvent<HTMLTableElement>): void => {
    const target = e.target as HTMLElement;
    const rr = Number(target.dataset.r);
    const cc = Number(target.dataset.c);
    if (Number.isNaN(rr) || Number.isNaN(cc)) return;
    let nr = rr;
    let nc = cc;
    switch (e.key) {
      case 'ArrowRight': nc = Math.min(ACTIONS.length - 1, cc + 1); break;
      case 'ArrowLeft': nc = Math.max(0, cc - 1); break;
      case 'ArrowDown': nr = rr + 1; break;
      case 'ArrowUp': nr = Math.max(0, rr - 1); break;
      case 'Home': nc = 0; if (e.ctrlKey) nr = 0; break;
      case 'End': nc = ACTIONS.length - 1; if (e.ctrlKey) nr = r - 1; break;
      case 'PageDown': nr = rr + 10; break;
      case 'PageUp': nr = Math.max(0, rr - 10); break;
      default: return;
    }
    nr = Math.min(nr, r - 1);
    e.preventDefault();
    const next = table.current?.querySelector<HTMLElement>(`[data-r="${nr}"][data-c="${nc}"]`);
    if (!next || next === target) return;
    target.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  };

  return (
    <div className="matrix-wrap">
      <table ref={table} className="matrix" role="grid" aria-label={`Permissions of ${policyName}`} onKeyDown={move}>
        <colgroup><col className="matrix-name-col" />{ACTIONS.map((a) => <col key={a} />)}</colgroup>
        <thead>
          <tr>
            <th scope="col">Collection</th>
            {ACTIONS.map((a) => <th key={a} scope="col">{ACTION_LABEL[a]}</th>)}
          </tr>
        </thead>
        <tbody>
          {ownRows.length === 0 && (
            <tr><td colSpan={ACTIONS.length + 1} className="matrix-empty">{searching ? 'No collection of the project matches.' : 'The project has no collections yet.'}</td></tr>
          )}
          {ownRows}
        </tbody>
        <tbody className="matrix-system">
          <tr className="matrix-group">
            <th colSpan={ACTIONS.length + 1} scope="rowgroup">
              {searching ? <span>System collections ({system.length} matching)</span> : (
                <button type="button" className="matrix-group-toggle" aria-expanded={systemShown} onClick={onToggleSystem}>
                  <span aria-hidden="true">{systemShown ? '▾' : '▸'}</span> System collections ({systemCount})
                </button>
              )}
            </th>
          </tr>
          {systemRows}
        </tbody>
      </table>
    </div>
  );
});

/** One collection's row. Its props are plain strings (the cells' states, the custom cells' summaries), so it renders
 * again only when one of its own cells changes. The first cell starts as the matrix's tab stop. */
const MatrixRow = memo(function MatrixRow({ collection, row, code, details, onOpen }: {
  collection: string;
  row: number;
  code: string;
  /** The custom cells' summaries, one line per action. */
  details: string;
  onOpen(collection: string, action: Action): void;
}) {
  const label = titleOf(collection);
  const detail = details.split('\n');
  return (
    <tr>
      <th scope="row" className="matrix-name">
        <span className="matrix-title">{label}</span>
        <span className="matrix-key mono">{collection}</span>
      </th>
      {ACTIONS.map((action, c) => {
        const state = CODE_STATE[code[c]];
        return (
          <td key={action} className="matrix-cell">
            <button type="button" className={`cell cell-${state}`} tabIndex={row === 0 && c === 0 ? 0 : -1} data-r={row} data-c={c}
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
