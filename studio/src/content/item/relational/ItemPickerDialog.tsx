/** Picks one item of a collection: a search box over GET {collection}?search=&limit=20 and the results as a
 * listbox (arrow keys move, Enter picks, Escape closes). */
import { useEffect, useId, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';
import { ErrorNotice } from '../../../ui/ErrorNotice.tsx';
import { fieldsOf, primaryKeyOf, titleOf, type Collection, type Field } from '../../schema.ts';
import { displayFields, displayOf } from '../display.ts';
import { collectionPath } from './paths.ts';
import { useModal } from '../../../ui/use-modal.ts';

type Row = Record<string, unknown>;

export function ItemPickerDialog({ open, collection, allFields, collections, exclude, title, onPick, onClose }: {
  open: boolean;
  collection: string;
  allFields: Field[];
  collections: Collection[];
  /** Keys already chosen (not offered again). */
  exclude?: (string | number)[];
  title?: string;
  onPick(row: Row): void;
  onClose(): void;
}) {
  const ref = useModal(open, () => { setSearch(''); setDebounced(''); setActive(0); searchRef.current?.focus(); });
  const searchRef = useRef<HTMLInputElement>(null);
  const [search, setSearch] = useState('');
  const [debounced, setDebounced] = useState('');
  const [active, setActive] = useState(0);
  const baseId = useId();
  const fields = fieldsOf(allFields, collection);
  const pk = primaryKeyOf(fields);

  useEffect(() => {
    const t = setTimeout(() => setDebounced(search.trim()), 200);
    return () => clearTimeout(t);
  }, [search]);

  const results = useQuery({
    queryKey: ['picker', collection, debounced],
    enabled: open,
    queryFn: ({ signal }) => request<Row[]>('GET', collectionPath(collection), { query: { search: debounced || undefined, limit: 20, fields: displayFields(collection, collections) }, signal }),
  });
  const excluded = new Set((exclude ?? []).map(String));
  const rows = (results.data ?? []).filter((r) => !excluded.has(String(r[pk])));
  const safeActive = Math.min(active, Math.max(rows.length - 1, 0));
  const optionId = (i: number) => `${baseId}-opt-${i}`;

  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); setActive(Math.min(safeActive + 1, rows.length - 1)); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); setActive(Math.max(safeActive - 1, 0)); }
    else if (e.key === 'Home') { e.preventDefault(); setActive(0); }
    else if (e.key === 'End') { e.preventDefault(); setActive(rows.length - 1); }
    else if (e.key === 'Enter') { e.preventDefault(); if (rows[safeActive]) onPick(rows[safeActive]); }
  };
  useEffect(() => {
    document.getElementById(optionId(safeActive))?.scrollIntoView({ block: 'nearest' });
  });

  const heading = title ?? `Choose from ${titleOf(collection)}`;
  return (
    <dialog ref={ref} className="item-picker" aria-labelledby={`${baseId}-title`} onCancel={(e) => { e.preventDefault(); onClose(); }}>
      {open && (
        <>
          <div className="dialog-head">
            <h2 id={`${baseId}-title`}>{heading}</h2>
            <button type="button" className="btn btn-ghost icon-btn" aria-label="Close" onClick={onClose}>×</button>
          </div>
          <div className="dialog-body">
            <input ref={searchRef} type="search" aria-label={`Search ${titleOf(collection)}`} placeholder="Search…" value={search}
              role="combobox" aria-expanded="true" aria-controls={`${baseId}-list`} aria-autocomplete="list"
              aria-activedescendant={rows.length ? optionId(safeActive) : undefined}
              onChange={(e) => { setSearch(e.target.value); setActive(0); }} onKeyDown={onKey} />
            {results.error ? <ErrorNotice error={results.error} onRetry={() => void results.refetch()} /> : (
              <ul className="item-picker-list" role="listbox" id={`${baseId}-list`} aria-label="Results" aria-busy={results.isFetching}>
                {rows.map((row, i) => (
                  <li key={String(row[pk])} id={optionId(i)} role="option" aria-selected={i === safeActive}
                    className={i === safeActive ? 'active' : undefined} onMouseEnter={() => setActive(i)} onClick={() => onPick(row)}>
                    <span className="item-picker-title">{displayOf(row, collection, collections, fields, pk)}</span>
                    <span className="muted item-picker-key">#{String(row[pk])}</span>
                  </li>
                ))}
                {!results.isFetching && rows.length === 0 && <li className="muted item-picker-empty" role="presentation">{debounced ? `Nothing matches “${debounced}”.` : 'No items to choose.'}</li>}
              </ul>
            )}
            <p className="muted item-picker-hint">↑ ↓ to move, Enter to choose, Esc to close. Showing up to 20; search to narrow.</p>
          </div>
        </>
      )}
    </dialog>
  );
}
