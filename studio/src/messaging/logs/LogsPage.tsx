/** Messaging > Send logs: every message the project sent or will send, newest first, paged and filtered on the
 * server (status, channel, template, a date range, a recipient), with the counts per status above; a pending send
 * can be cancelled. The filters live in the address, so a filtered view can be shared or reloaded. */
import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { request } from '../../api/client.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { CHANNELS, LOG_STATUSES, channelLabel, formatTime, jsonValue, listPage, templateNamesQuery, type Log } from '../api.ts';
import { LogStatsBar, statsQuery } from './LogStats.tsx';
import { StatusBadge, STATUS_LABEL } from './status.tsx';

interface Filters { status: string; channel: string; template: string; from: string; to: string; q: string; page: number; limit: number }

const FIELDS = ['id', 'status', 'channel', 'template_id', 'recipients', 'subject_rendered', 'created_at', 'scheduled_at', 'sent_at', 'error_message'];

function readFilters(search: string): Filters {
  const p = new URLSearchParams(search);
  const n = (k: string, d: number) => { const v = Number(p.get(k)); return Number.isInteger(v) && v > 0 ? v : d; };
  return {
    status: p.get('status') ?? '', channel: p.get('channel') ?? '', template: p.get('template') ?? '',
    from: p.get('from') ?? '', to: p.get('to') ?? '', q: p.get('q') ?? '', page: n('page', 1), limit: n('limit', 25),
  };
}

function searchOf(f: Filters): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) {
    if (v === '' || (k === 'page' && v === 1) || (k === 'limit' && v === 25)) continue;
    p.set(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** A day in the reader's time zone as the instant it starts. */
const dayStart = (day: string): string | null => {
  const d = new Date(`${day}T00:00:00`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
};
const nextDayStart = (day: string): string | null => {
  const d = new Date(`${day}T00:00:00`);
  if (Number.isNaN(d.getTime())) return null;
  d.setDate(d.getDate() + 1);
  return d.toISOString();
};

function apiFilter(f: Filters, recipient: string): Record<string, unknown> | undefined {
  const parts: Record<string, unknown>[] = [];
  if (f.status) parts.push({ status: { _eq: f.status } });
  if (f.channel) parts.push({ channel: { _eq: f.channel } });
  if (f.template) parts.push({ template_id: { _eq: f.template } });
  const from = f.from ? dayStart(f.from) : null;
  const to = f.to ? nextDayStart(f.to) : null;
  if (from) parts.push({ created_at: { _gte: from } });
  if (to) parts.push({ created_at: { _lt: to } });
  if (recipient) parts.push({ recipients: { _icontains: recipient } });
  return parts.length ? { _and: parts } : undefined;
}

export default function LogsPage() {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const f = readFilters(search);
  const set = (patch: Partial<Filters>) => navigate(`${location}${searchOf({ ...f, page: 1, ...patch })}`, { replace: true });
  const [recipientText, setRecipientText] = useState(f.q);
  const recipient = useDebounced(recipientText.trim(), 300);
  useEffect(() => {
    if (recipient !== f.q) set({ q: recipient });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [recipient]);
  const qc = useQueryClient();
  const [cancelling, setCancelling] = useState<Log | null>(null);

  const templates = useQuery(templateNamesQuery);
  const list = useQuery({
    queryKey: ['messaging', 'logs', { ...f }],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => listPage<Log>('/notify/logs', { fields: FIELDS, sort: ['-created_at', '-id'], limit: f.limit, page: f.page, filter: apiFilter(f, f.q) }, signal),
  });
  const total = list.data?.meta.filter_count;
  const pages = Math.max(1, Math.ceil((total ?? 0) / f.limit));
  const filtered = Boolean(f.status || f.channel || f.template || f.from || f.to || f.q);

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Send logs</h1>
        <button type="button" className="btn" onClick={() => { void list.refetch(); void qc.invalidateQueries({ queryKey: statsQuery.queryKey }); }}>Refresh</button>
      </header>
      <LogStatsBar status={f.status} onStatus={(status) => set({ status })} />
      <div className="toolbar log-filters" role="search" aria-label="Filter logs">
        <label className="inline-field">
          <span>Status</span>
          <select value={f.status} onChange={(e) => set({ status: e.target.value })}>
            <option value="">Any</option>
            {LOG_STATUSES.map((s) => <option key={s} value={s}>{STATUS_LABEL[s]}</option>)}
          </select>
        </label>
        <label className="inline-field">
          <span>Channel</span>
          <select value={f.channel} onChange={(e) => set({ channel: e.target.value })}>
            <option value="">Any</option>
            {CHANNELS.map((c) => <option key={c.id} value={c.id}>{c.label}</option>)}
          </select>
        </label>
        <label className="inline-field">
          <span>Template</span>
          <select value={f.template} onChange={(e) => set({ template: e.target.value })}>
            <option value="">Any</option>
            {f.template && !templates.data?.some((t) => t.id === f.template) && <option value={f.template}>{f.template}</option>}
            {(templates.data ?? []).map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
          </select>
        </label>
        <label className="inline-field">
          <span>From</span>
          <input type="date" value={f.from} max={f.to || undefined} onChange={(e) => set({ from: e.target.value })} />
        </label>
        <label className="inline-field">
          <span>To</span>
          <input type="date" value={f.to} min={f.from || undefined} onChange={(e) => set({ to: e.target.value })} />
        </label>
        <input type="search" aria-label="Recipient" placeholder="Recipient" value={recipientText} onChange={(e) => setRecipientText(e.target.value)} />
        {filtered && <button type="button" className="btn btn-small btn-ghost" onClick={() => { setRecipientText(''); navigate(location, { replace: true }); }}>Clear filters</button>}
      </div>
      <div className="page-body">
        {list.error ? <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
          : !list.data ? <Loading label="Loading send logs" />
          : list.data.data.length === 0 ? (
            <div className="empty-state">
              <h2>{filtered ? 'No logs match these filters' : 'Nothing sent yet'}</h2>
              <p className="muted">{filtered ? 'Widen the date range or clear a filter.' : 'Every message sent through a template, and every invitation or password-reset mail, is logged here with its delivery.'}</p>
            </div>
          ) : (
            <>
              <div className="table-wrap">
                <table className="grid" aria-label="Send logs">
                  <thead>
                    <tr><th scope="col">Log</th><th scope="col">Status</th><th scope="col">Channel</th><th scope="col">Template</th><th scope="col">Recipients</th><th scope="col">Subject</th><th scope="col">When</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
                  </thead>
                  <tbody>
                    {list.data.data.map((log) => {
                      const to = jsonValue<string[]>(log.recipients) ?? [];
                      const when = log.status === 'pending' && log.scheduled_at ? `Scheduled ${formatTime(log.scheduled_at)}` : formatTime(log.sent_at ?? log.created_at);
                      return (
                        <tr key={log.id}>
                          <th scope="row"><Link className="row-link strong" href={`/logs/${log.id}`} aria-label={`Log ${log.id}`}>#{log.id}</Link></th>
                          <td><StatusBadge status={log.status} /></td>
                          <td>{channelLabel(log.channel)}</td>
                          <td className="mono">{log.template_id ?? <span className="muted">Service mail</span>}</td>
                          <td className="cell-wide" title={to.join(', ')}>{to.slice(0, 2).join(', ')}{to.length > 2 ? ` +${to.length - 2}` : ''}</td>
                          <td className="cell-wide">{log.subject_rendered ?? ''}</td>
                          <td>{when}</td>
                          <td className="row-actions">
                            {log.status === 'pending' && (
                              <button type="button" className="btn btn-small" onClick={() => setCancelling(log)} aria-label={`Cancel send ${log.id}`}>Cancel send</button>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
              <Pager page={f.page} pages={pages} onPage={(page) => set({ page })} limit={f.limit} onLimit={(limit) => set({ limit })}
                summary={rangeSummary(f.page, f.limit, list.data.data.length, total, 'logs')} label="Log pages" />
            </>
          )}
      </div>
      {cancelling && (
        <CancelSendDialog log={cancelling} onClose={() => setCancelling(null)} onCancelled={async () => {
          setCancelling(null);
          await qc.invalidateQueries({ queryKey: ['messaging', 'logs'] });
          await qc.invalidateQueries({ queryKey: statsQuery.queryKey });
        }} />
      )}
    </div>
  );
}

export function CancelSendDialog({ log, onClose, onCancelled }: { log: Pick<Log, 'id' | 'scheduled_at' | 'recipients' | 'subject_rendered'>; onClose(): void; onCancelled(): Promise<void> | void }) {
  const to = jsonValue<string[]>(log.recipients) ?? [];
  return (
    <ConfirmDialog title={`Cancel send #${log.id}?`} confirmLabel="Cancel the send" onClose={onClose}
      onConfirm={async () => {
        await request('PATCH', `/notify/logs/${log.id}/cancel`);
        await onCancelled();
      }}>
      <p>
        {log.subject_rendered ? <>“{log.subject_rendered}” </> : 'This message '}
        to {to.length === 1 ? to[0] : `${to.length} recipients`}{log.scheduled_at ? `, scheduled for ${formatTime(log.scheduled_at)},` : ''} will not be sent. It cannot be resumed; send it again to change your mind.
      </p>
    </ConfirmDialog>
  );
}
