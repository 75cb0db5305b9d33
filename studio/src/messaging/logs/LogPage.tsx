/** Messaging > Send logs > one log: what was sent to whom and when, through which provider, the rendered subject
 * and message (in a sandboxed frame), the variables, the provider's answer or error, and its delivery events as the
 * provider reported them, in time order. A pending send can be cancelled here. */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { request, requestList } from '../../api/client.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { channelLabel, formatTime, jsonValue, providersQuery, type DeliveryEvent, type Log } from '../api.ts';
import { StoredFrame } from '../preview/PreviewFrame.tsx';
import { statsQuery } from './LogStats.tsx';
import { CancelSendDialog } from './LogsPage.tsx';
import { StatusBadge } from './status.tsx';

const EVENT_LABEL: Record<string, string> = {
  delivered: 'Delivered', bounced: 'Bounced', rejected: 'Rejected', deferred: 'Deferred', opened: 'Opened', clicked: 'Clicked',
  complaint: 'Marked as spam', unsubscribed: 'Unsubscribed',
};

const EVENTS_SHOWN = 200;

export default function LogPage({ id }: { id: string }) {
  const qc = useQueryClient();
  const [cancelling, setCancelling] = useState(false);
  const log = useQuery({
    queryKey: ['messaging', 'log', id],
    queryFn: ({ signal }) => request<Log>('GET', `/notify/logs/${encodeURIComponent(id)}`, { signal }),
  });
  const events = useQuery({
    queryKey: ['messaging', 'log', id, 'events'],
    queryFn: ({ signal }) => requestList<DeliveryEvent>(`/notify/logs/${encodeURIComponent(id)}/events`, {
      fields: ['id', 'event', 'provider_status_raw', 'reason', 'occurred_at', 'received_at'], limit: EVENTS_SHOWN, meta: 'filter_count',
    }, signal),
  });
  const providers = useQuery(providersQuery);

  if (log.error) {
    return (
      <div className="main-pane">
        <header className="page-header"><nav aria-label="Breadcrumb" className="crumbs"><Link href="/logs">Send logs</Link></nav><h1>Log #{id}</h1></header>
        <div className="page-body"><ErrorNotice error={log.error} onRetry={() => void log.refetch()} /></div>
      </div>
    );
  }
  if (!log.data) return <div className="main-pane"><Loading label="Loading the log" /></div>;
  const l = log.data;
  const recipients = jsonValue<string[]>(l.recipients) ?? [];
  const cc = jsonValue<string[]>(l.cc) ?? [];
  const bcc = jsonValue<string[]>(l.bcc) ?? [];
  const variables = jsonValue<Record<string, unknown>>(l.variables);
  const provider = providers.data?.find((p) => p.id === l.provider_id);
  const response = jsonValue<unknown>(l.provider_response);

  return (
    <div className="main-pane">
      <header className="page-header">
        <nav aria-label="Breadcrumb" className="crumbs"><Link href="/logs">Send logs</Link></nav>
        <h1>Log #{l.id}</h1>
        <span className="title-aside"><StatusBadge status={l.status} /></span>
        <button type="button" className="btn" onClick={() => { void log.refetch(); void events.refetch(); }}>Refresh</button>
        {l.status === 'pending' && <button type="button" className="btn btn-danger" onClick={() => setCancelling(true)}>Cancel send</button>}
      </header>
      <div className="page-body log-detail">
        <section className="messaging-card" aria-labelledby="log-summary">
          <h2 id="log-summary" className="visually-hidden">Summary</h2>
          <dl className="facts">
            <dt>Channel</dt><dd>{channelLabel(l.channel)}</dd>
            <dt>Template</dt><dd>{l.template_id ? <Link href={`/templates/${encodeURIComponent(l.template_id)}`} className="mono">{l.template_id}</Link> : <span className="muted">None (service mail)</span>}</dd>
            <dt>Provider</dt><dd>{provider ? provider.name : l.provider_id ? `#${l.provider_id}` : <span className="muted">The channel's primary or the settings</span>}</dd>
            <dt>Locale</dt><dd className="mono">{l.locale ?? ''}</dd>
            <dt>Recipients</dt><dd className="break">{recipients.join(', ')}</dd>
            {cc.length > 0 && <><dt>Cc</dt><dd className="break">{cc.join(', ')}</dd></>}
            {bcc.length > 0 && <><dt>Bcc</dt><dd className="break">{bcc.join(', ')}</dd></>}
            <dt>Created</dt><dd>{formatTime(l.created_at, true)}</dd>
            {l.scheduled_at && <><dt>Scheduled for</dt><dd>{formatTime(l.scheduled_at, true)}</dd></>}
            <dt>Sent</dt><dd>{l.sent_at ? formatTime(l.sent_at, true) : <span className="muted">Not yet</span>}</dd>
            {l.delivered_at && <><dt>Delivered</dt><dd>{formatTime(l.delivered_at, true)}</dd></>}
            {l.provider_message_id && <><dt>Message id</dt><dd className="mono break">{l.provider_message_id}</dd></>}
          </dl>
          {l.error_message && <div className="notice notice-error" role="status"><strong>Error</strong><span className="break">{l.error_message}</span></div>}
        </section>

        <section className="messaging-card" aria-labelledby="log-events">
          <div className="card-head">
            <h2 id="log-events">Delivery events</h2>
            {events.data && <span className="muted">{events.data.meta.filter_count ?? events.data.data.length}</span>}
          </div>
          {events.error ? <ErrorNotice error={events.error} onRetry={() => void events.refetch()} />
            : !events.data ? <Loading label="Loading delivery events" />
            : events.data.data.length === 0 ? (
              <p className="muted card-empty">
                {l.channel === 'email' ? 'No delivery reports yet. Providers that send them (a mail gateway, cloud mail) report to this service\'s webhook once set up on the provider.' : 'This channel has no delivery reports.'}
              </p>
            ) : (
              <div className="table-scroll">
                <table className="grid" aria-labelledby="log-events">
                  <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Details</th></tr></thead>
                  <tbody>
                    {events.data.data.map((e) => (
                      <tr key={e.id}>
                        <td title={e.received_at ? `Received ${formatTime(e.received_at, true)}` : undefined}>{formatTime(e.occurred_at ?? e.received_at, true)}</td>
                        <th scope="row">{EVENT_LABEL[e.event] ?? e.event}</th>
                        <td className="cell-wide">{[e.reason, e.provider_status_raw && e.provider_status_raw !== e.event ? `provider status ${e.provider_status_raw}` : null].filter(Boolean).join(' · ')}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          {events.data && (events.data.meta.filter_count ?? 0) > EVENTS_SHOWN && <p className="muted">The first {EVENTS_SHOWN} of {events.data.meta.filter_count} events.</p>}
        </section>

        <section className="messaging-card span-all" aria-labelledby="log-message">
          <div className="card-head"><h2 id="log-message">Message</h2></div>
          <div className="preview-subject"><span className="muted">Subject</span><span>{l.subject_rendered || <span className="muted">(none)</span>}</span></div>
          <StoredFrame src={`/notify/logs/${l.id}/content`} title={`Message of log ${l.id}`} />
        </section>

        <section className="messaging-card span-all" aria-labelledby="log-data">
          <h2 id="log-data">Variables and provider answer</h2>
          <div className="two-col">
            <div>
              <h3>Variables</h3>
              <pre className="code-block">{variables ? JSON.stringify(variables, null, 2) : 'None'}</pre>
            </div>
            <div>
              <h3>Provider answer</h3>
              <pre className="code-block">{response ? JSON.stringify(response, null, 2) : 'None'}</pre>
            </div>
          </div>
        </section>
      </div>
      {cancelling && (
        <CancelSendDialog log={l} onClose={() => setCancelling(false)} onCancelled={async () => {
          setCancelling(false);
          await log.refetch();
          await qc.invalidateQueries({ queryKey: ['messaging', 'logs'] });
          await qc.invalidateQueries({ queryKey: statsQuery.queryKey });
        }} />
      )}
    </div>
  );
}
