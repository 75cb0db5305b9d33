/** The counts of send logs per status (GET /notify/logs/stats) above the list; each count filters the list to its
 * status, and pressing it again clears that filter. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { LOG_STATUSES, type LogStats } from '../api.ts';
import { STATUS_LABEL } from './status.tsx';

export const statsQuery = queryOptions({
  queryKey: ['messaging', 'log-stats'],
  queryFn: ({ signal }) => request<LogStats>('GET', '/notify/logs/stats', { signal }),
  refetchInterval: 30_000,
});

const count = new Intl.NumberFormat();

export function LogStatsBar({ status, onStatus }: { status: string; onStatus(status: string): void }) {
  const stats = useQuery(statsQuery);
  if (stats.error) return <div className="stats-bar"><ErrorNotice error={stats.error} onRetry={() => void stats.refetch()} title="The counts could not be read." /></div>;
  return (
    <section className="stats-bar" aria-label="Logs per status">
      <div className="stat stat-total">
        <span className="stat-value">{stats.data ? count.format(stats.data.total) : '–'}</span>
        <span className="stat-label">Total</span>
      </div>
      {LOG_STATUSES.map((s) => (
        <button key={s} type="button" className={`stat stat-${s}`} aria-pressed={status === s} onClick={() => onStatus(status === s ? '' : s)}>
          <span className="stat-value">{stats.data ? count.format(stats.data[s]) : '–'}</span>
          <span className="stat-label">{STATUS_LABEL[s]}</span>
        </button>
      ))}
    </section>
  );
}
