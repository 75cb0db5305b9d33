/** /admin/review/schedule: scheduled publishing as a calendar list. Upcoming schedules first (soonest first, by the
 * time they are due), the past below (latest first, by when each ran or was cancelled), grouped by day in the user's
 * time zone (named); every entry names its action, the draft
 * it publishes, its item (a link to the editor), who scheduled it, its status and, for a failed run, why. Filters by
 * collection and status live in the address; both lists page on the server and load in parallel, followed by one
 * round for the names they mention (drafts, items, people). Upcoming entries can be cancelled here. */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { keepPreviousData, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { request, requestList } from '../../api/client.ts';
import { useSession } from '../../app/session.tsx';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { displayFields, displayOf } from '../../content/item/display.ts';
import { fieldsOf, primaryKeyOf, titleOf, useAllFields, useCollections, type Collection, type Field } from '../../content/schema.ts';
import {
  actionText, cancelSchedule, clockTime, dayKey, dayLabel, endedAt, fullTime, personText, pollDelay, refreshSchedules, SCHEDULE_FIELDS, SCHEDULES_KEY,
  STATUS_LABELS, TIME_ZONE, usePeople, type Schedule, type ScheduleStatus, type VersionInfo,
} from '../../content/item/versions/schedules.ts';
import './schedule.css';

const PAST: ScheduleStatus[] = ['done', 'failed', 'cancelled'];
const STATUSES: ScheduleStatus[] = ['scheduled', ...PAST];

interface Page { data: Schedule[]; total: number }

function filterOf(collection: string, statuses: ScheduleStatus[]): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [{ status: statuses.length === 1 ? { _eq: statuses[0] } : { _in: statuses } }];
  if (collection) parts.push({ collection: { _eq: collection } });
  return { _and: parts };
}

function useSection(kind: 'upcoming' | 'past', enabled: boolean, collection: string, statuses: ScheduleStatus[], page: number, limit: number) {
  return useQuery({
    queryKey: [SCHEDULES_KEY, 'calendar', kind, collection, statuses.join(','), page, limit],
    enabled,
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }): Promise<Page> => {
      const res = await requestList<Schedule>('/schedules', {
        filter: filterOf(collection, statuses), fields: SCHEDULE_FIELDS, sort: kind === 'upcoming' ? 'scheduled_at,id' : '-date_updated,-id',
        limit, page, meta: 'filter_count',
      }, signal);
      return { data: res.data, total: res.meta.filter_count ?? res.data.length };
    },
    refetchInterval: kind === 'upcoming' ? (q) => pollDelay(q.state.data?.data) : false,
  });
}

export default function SchedulePage() {
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const collection = search.get('collection') ?? '';
  const statusParam = search.get('status') ?? '';
  const status = (STATUSES as string[]).includes(statusParam) ? statusParam as ScheduleStatus : '';
  const [limit, setLimit] = useState(25);
  const [pages, setPages] = useState({ upcoming: 1, past: 1 });
  const queryClient = useQueryClient();
  const collections = useCollections();
  const fields = useAllFields();

  const setFilter = (key: 'collection' | 'status', value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(key, value);
    else next.delete(key);
    setPages({ upcoming: 1, past: 1 });
    const qs = next.toString();
    navigate(`/schedule${qs ? `?${qs}` : ''}`, { replace: true });
  };

  const showUpcoming = status === '' || status === 'scheduled';
  const showPast = status !== 'scheduled';
  const upcoming = useSection('upcoming', showUpcoming, collection, ['scheduled'], pages.upcoming, limit);
  const past = useSection('past', showPast, collection, status && status !== 'scheduled' ? [status] : PAST, pages.past, limit);

  // A schedule that ran leaves the upcoming list: the past list is read again to take it in.
  const upcomingIds = (upcoming.data?.data ?? []).map((s) => s.id).join(',');
  const previous = useRef(upcomingIds);
  useEffect(() => {
    if (previous.current && previous.current !== upcomingIds) void queryClient.invalidateQueries({ queryKey: [SCHEDULES_KEY, 'calendar', 'past'] });
    previous.current = upcomingIds;
  }, [upcomingIds, queryClient]);

  const shown = [...(showUpcoming ? upcoming.data?.data ?? [] : []), ...(showPast ? past.data?.data ?? [] : [])];
  const names = useNames(shown, collections.data, fields.data);
  const [cancelling, setCancelling] = useState<Schedule | null>(null);

  const contentCollections = (collections.data ?? []).filter((c) => c.schema !== null && !c.collection.startsWith('svc_'))
    .sort((a, b) => a.collection.localeCompare(b.collection));

  return (
    <div className="main-pane schedule-page">
      <header className="page-header">
        <h1>Scheduled publishing</h1>
        <span className="muted">Times in {TIME_ZONE}</span>
      </header>
      <div className="toolbar" role="search" aria-label="Filter schedules">
        <label className="toolbar-field">
          <span>Collection</span>
          <select value={collection} onChange={(e) => setFilter('collection', e.target.value)}>
            <option value="">All collections</option>
            {contentCollections.map((c) => <option key={c.collection} value={c.collection}>{titleOf(c.collection)}</option>)}
            {collection && !contentCollections.some((c) => c.collection === collection) && <option value={collection}>{titleOf(collection)}</option>}
          </select>
        </label>
        <label className="toolbar-field">
          <span>Status</span>
          <select value={status} onChange={(e) => setFilter('status', e.target.value)}>
            <option value="">All statuses</option>
            {STATUSES.map((s) => <option key={s} value={s}>{STATUS_LABELS[s]}</option>)}
          </select>
        </label>
      </div>
      <div className="page-body schedule-body">
        {showUpcoming && (
          <Section title="Upcoming" id="upcoming" query={upcoming} empty={collection ? 'Nothing is scheduled in this collection.' : 'Nothing is scheduled.'}
            names={names} onCancel={setCancelling} page={pages.upcoming} limit={limit}
            onPage={(p) => setPages((x) => ({ ...x, upcoming: p }))} onLimit={(l) => { setLimit(l); setPages({ upcoming: 1, past: 1 }); }} />
        )}
        {showPast && (
          <Section title={status ? STATUS_LABELS[status] : 'Past'} id="past" query={past}
            empty={status ? `No schedule is ${STATUS_LABELS[status].toLowerCase()}.` : 'No schedule has run or been cancelled yet.'}
            names={names} onCancel={setCancelling} page={pages.past} limit={limit}
            onPage={(p) => setPages((x) => ({ ...x, past: p }))} onLimit={(l) => { setLimit(l); setPages({ upcoming: 1, past: 1 }); }} />
        )}
      </div>
      {cancelling && (
        <ConfirmDialog title="Cancel this schedule?" confirmLabel="Cancel schedule" cancelLabel="Keep it" onClose={() => setCancelling(null)}
          onConfirm={async () => {
            await cancelSchedule(cancelling.id);
            await refreshSchedules(queryClient);
            setCancelling(null);
          }}>
          <p>
            {actionText(cancelling, names.versions)} of {names.item(cancelling)} will not happen at {fullTime(cancelling.scheduled_at)}.
            You can schedule it again later.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

interface Names {
  versions: Map<string, VersionInfo>;
  item(s: Schedule): string;
  people: ReturnType<typeof usePeople>;
  me: string | undefined;
}

/** The names the shown schedules mention, in one round of parallel requests: their drafts, their items (one request
 * per collection on the page, the keys on it only) and the people who scheduled them. */
function useNames(shown: Schedule[], collections: Collection[] | undefined, fields: Field[] | undefined): Names {
  const { me } = useSession();
  const versionIds = [...new Set(shown.map((s) => s.version).filter((v): v is string => Boolean(v)))].sort();
  const versions = useQuery({
    queryKey: ['versions', 'names', versionIds],
    enabled: versionIds.length > 0,
    staleTime: 60_000,
    queryFn: ({ signal }) => request<VersionInfo[]>('GET', '/versions', { query: { filter: { id: { _in: versionIds } }, fields: ['id', 'key', 'name', 'status'], limit: -1 }, signal }),
  });
  const byCollection = new Map<string, Set<string>>();
  for (const s of shown) {
    if (!byCollection.has(s.collection)) byCollection.set(s.collection, new Set());
    byCollection.get(s.collection)!.add(s.item);
  }
  const groups = [...byCollection].sort((a, b) => a[0].localeCompare(b[0])).map(([c, keys]) => ({ collection: c, keys: [...keys].sort() }));
  const items = useQueries({
    queries: groups.map((g) => {
      const own = fieldsOf(fields, g.collection);
      const pk = primaryKeyOf(own);
      return {
        queryKey: ['item-names', g.collection, g.keys],
        enabled: Boolean(fields && collections),
        staleTime: 60_000,
        retry: false,
        queryFn: ({ signal }: { signal: AbortSignal }) => request<Record<string, unknown>[]>('GET', `/items/${encodeURIComponent(g.collection)}`, {
          query: { filter: { [pk]: { _in: g.keys } }, fields: displayFields(g.collection, collections), limit: g.keys.length }, signal,
        }).then((rows) => ({ collection: g.collection, pk, rows })),
      };
    }),
  });
  const people = usePeople(shown.map((s) => s.scheduled_by));
  const versionMap = useMemo(() => new Map((versions.data ?? []).map((v) => [v.id, v])), [versions.data]);
  const titles = new Map<string, string>();
  for (const q of items) {
    if (!q.data) continue;
    const own = fieldsOf(fields, q.data.collection);
    for (const row of q.data.rows) titles.set(`${q.data.collection}\u0000${String(row[q.data.pk])}`, displayOf(row, q.data.collection, collections, own, q.data.pk));
  }
  return {
    versions: versionMap,
    item: (s) => titles.get(`${s.collection}\u0000${s.item}`) || `Item ${s.item}`,
    people,
    me: me?.id,
  };
}

function Section({ title, id, query, empty, names, onCancel, page, limit, onPage, onLimit }: {
  title: string;
  id: string;
  query: ReturnType<typeof useSection>;
  empty: string;
  names: Names;
  onCancel(s: Schedule): void;
  page: number;
  limit: number;
  onPage(p: number): void;
  onLimit(l: number): void;
}) {
  const headingId = `schedule-${id}-heading`;
  const data = query.data;
  const days = useMemo(() => {
    const out: { key: string; rows: Schedule[] }[] = [];
    for (const s of data?.data ?? []) {
      const key = dayKey(id === 'upcoming' ? s.scheduled_at : endedAt(s));
      const last = out[out.length - 1];
      if (last && last.key === key) last.rows.push(s);
      else out.push({ key, rows: [s] });
    }
    return out;
  }, [data, id]);
  const totalPages = Math.max(1, Math.ceil((data?.total ?? 0) / limit));
  return (
    <section className="schedule-calendar-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}{data && <span className="badge schedule-count">{data.total}</span>}</h2>
      {query.error ? <ErrorNotice error={query.error} onRetry={() => void query.refetch()} />
        : !data ? <Loading label={`Loading ${title.toLowerCase()} schedules`} />
          : data.total === 0 ? <p className="muted schedule-empty">{empty}</p> : (
            <>
              <table className="schedule-table" aria-labelledby={headingId} aria-busy={query.isPlaceholderData || undefined}>
                <thead>
                  <tr>
                    <th scope="col" className="col-time">{id === 'upcoming' ? 'Due' : 'Ended'}</th>
                    <th scope="col">What</th>
                    <th scope="col">Item</th>
                    <th scope="col">By</th>
                    <th scope="col" className="col-status">Status</th>
                    <th scope="col" className="col-actions"><span className="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                {days.map((d) => (
                  <tbody key={d.key}>
                    <tr className="schedule-day"><th scope="colgroup" colSpan={6}>{dayLabel(d.key)}</th></tr>
                    {d.rows.map((s) => <Row key={s.id} schedule={s} names={names} onCancel={onCancel} upcoming={id === 'upcoming'} />)}
                  </tbody>
                ))}
              </table>
              {data.total > limit && (
                <Pager label={`${title} pages`} page={page} pages={totalPages} onPage={onPage} limit={limit} onLimit={onLimit}
                  summary={rangeSummary(page, limit, data.data.length, data.total, 'schedules')} />
              )}
            </>
          )}
    </section>
  );
}

function Row({ schedule: s, names, onCancel, upcoming }: { schedule: Schedule; names: Names; onCancel(s: Schedule): void; upcoming: boolean }) {
  const itemTitle = names.item(s);
  const overdue = s.status === 'scheduled' && Date.parse(s.scheduled_at) < Date.now();
  // Upcoming: when it is due. Past: when it ended, and when it was due if that differs (a cancellation; a late run).
  const at = upcoming ? s.scheduled_at : endedAt(s);
  const late = !upcoming && Math.abs(Date.parse(at) - Date.parse(s.scheduled_at)) > 60_000;
  return (
    <tr className={`schedule-entry is-${s.status}`}>
      <td className="col-time"><time dateTime={at} title={fullTime(at)}>{clockTime(at)}</time></td>
      <td>
        <span className={`schedule-action action-${s.action}`}>{actionText(s, names.versions)}</span>
        {late && <div className="muted schedule-due">{s.status === 'cancelled' ? 'Was due' : 'Due'} {fullTime(s.scheduled_at)}</div>}
        {s.status === 'failed' && <div className="schedule-error">Why it failed: {s.error ?? 'no reason was recorded.'}</div>}
      </td>
      <td>
        <Link href={`~/admin/content/${encodeURIComponent(s.collection)}/${encodeURIComponent(s.item)}`} className="schedule-item">{itemTitle}</Link>
        <div className="muted schedule-collection">{titleOf(s.collection)}</div>
      </td>
      <td>{personText(s.scheduled_by, names.people, names.me, true)}</td>
      <td className="col-status"><span className={`badge schedule-status status-${s.status}`}>{overdue ? 'Due now' : STATUS_LABELS[s.status]}</span></td>
      <td className="col-actions">
        {s.status === 'scheduled' && (
          <button type="button" className="btn btn-small" onClick={() => onCancel(s)} aria-label={`Cancel: ${actionText(s, names.versions)} of ${itemTitle}`}>Cancel</button>
        )}
      </td>
    </tr>
  );
}
