/** Page navigation under a server-paged list: what is shown (`summary`, announced politely), rows per page, first /
 * previous / page number / next / last. Every list of the Studio pages on the server; none loads a whole table. */
import { useEffect, useState, type ReactNode } from 'react';

const count = new Intl.NumberFormat();

export const PAGE_SIZES = [25, 50, 100];

export function Pager({ page, pages, onPage, limit, onLimit, summary, label = 'Pages' }: {
  page: number;
  pages: number;
  onPage(page: number): void;
  limit: number;
  onLimit(limit: number): void;
  summary: ReactNode;
  label?: string;
}) {
  return (
    <nav className="pager" aria-label={label}>
      <span className="pager-range" aria-live="polite">{summary}</span>
      <span className="spacer" />
      <label className="pager-size">
        <span>Rows per page</span>
        <select value={limit} onChange={(e) => onLimit(Number(e.target.value))}>
          {[...new Set([...PAGE_SIZES, limit])].sort((a, b) => a - b).map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </label>
      <button type="button" className="btn btn-small" onClick={() => onPage(1)} disabled={page <= 1} aria-label="First page">«</button>
      <button type="button" className="btn btn-small" onClick={() => onPage(Math.max(1, page - 1))} disabled={page <= 1}>Previous</button>
      <PageInput page={page} pages={pages} onChange={onPage} />
      <button type="button" className="btn btn-small" onClick={() => onPage(Math.min(pages, page + 1))} disabled={page >= pages}>Next</button>
      <button type="button" className="btn btn-small" onClick={() => onPage(pages)} disabled={page >= pages} aria-label="Last page">»</button>
    </nav>
  );
}

/** "1–25 of 1,234", or "No items" (`noun` names what is counted). */
export function rangeSummary(page: number, limit: number, shown: number, total: number | undefined, noun = 'items'): string {
  if (total === undefined) return '\u00a0';
  if (total === 0) return `No ${noun}`;
  const from = (page - 1) * limit + 1;
  return `${count.format(from)}–${count.format(from + shown - 1)} of ${count.format(total)}`;
}

function PageInput({ page, pages, onChange }: { page: number; pages: number; onChange(p: number): void }) {
  const [text, setText] = useState(String(page));
  useEffect(() => setText(String(page)), [page]);
  const commit = (): void => {
    const n = Number(text);
    if (Number.isInteger(n) && n >= 1 && n <= pages) onChange(n);
    else setText(String(page));
  };
  return (
    <span className="pager-page">
      <label>
        <span>Page</span>
        <input type="number" min={1} max={pages} value={text} onChange={(e) => setText(e.target.value)} onBlur={commit}
          onKeyDown={(e) => { if (e.key === 'Enter') commit(); }} />
      </label>
      <span>of {count.format(pages)}</span>
    </span>
  );
}
