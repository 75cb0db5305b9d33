/** A column header that sorts the server-paged list it heads: first click ascending, second descending. */
export interface Sort { field: string; desc: boolean }

export function SortHeader({ label, field, sort, onSort }: { label: string; field: string; sort: Sort; onSort(next: Sort): void }) {
  const on = sort.field === field;
  return (
    <th scope="col" aria-sort={on ? (sort.desc ? 'descending' : 'ascending') : undefined}>
      <button type="button" onClick={() => onSort({ field, desc: on ? !sort.desc : false })}>
        {label}
        <span className={on ? 'sort-mark on' : 'sort-mark'} aria-hidden="true">{on && sort.desc ? '▼' : '▲'}</span>
      </button>
    </th>
  );
}
