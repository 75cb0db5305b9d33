/** The bell's panel: the signed-in user's notifications, newest first, paged on the server ("Show more"), in two
 * tabs, Inbox and Archived. Each says what happened (subject, message, when) and links to the item it concerns;
 * archive one or all, or move one back to the inbox. A non-modal dialog beside the bell: focus moves in when it
 * opens, Escape or a click elsewhere closes it, and focus goes back to the bell. */
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { request } from '../api/client.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { OWN } from './Bell.tsx';
import './bell.css';

interface Notice {
  id: number;
  subject: string;
  message: string | null;
  collection: string | null;
  item: string | null;
  timestamp: string | null;
  status: 'inbox' | 'archived';
}

type Tab = 'inbox' | 'archived';
const PAGE = 20;

/** A message as plain words: template contents are HTML, and the bell shows no markup (parsed inertly: a DOMParser
 * document runs no script and loads nothing). */
function plainText(message: string | null): string {
  if (!message) return '';
  if (!/[<&]/.test(message)) return message;
  const doc = new DOMParser().parseFromString(message, 'text/html');
  return (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim();
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function when(timestamp: string | null): { text: string; title: string } {
  if (!timestamp) return { text: '', title: '' };
  const t = new Date(timestamp);
  const seconds = (t.getTime() - Date.now()) / 1000;
  const abs = Math.abs(seconds);
  const text = abs < 60 ? 'just now'
    : abs < 3600 ? relative.format(Math.round(seconds / 60), 'minute')
    : abs < 86_400 ? relative.format(Math.round(seconds / 3600), 'hour')
    : abs < 7 * 86_400 ? relative.format(Math.round(seconds / 86_400), 'day')
    : full.format(t);
  return { text, title: full.format(t) };
}

/** Where a notification leads: the item it concerns, when it is a content item. */
function itemHref(n: Notice): string | null {
  if (!n.collection || n.item === null || n.item === '' || n.collection.startsWith('svc_')) return null;
  return `/content/${encodeURIComponent(n.collection)}/${encodeURIComponent(n.item)}`;
}

export default function BellPanel({ onClose, unread }: { onClose(): void; unread: number }) {
  const [tab, setTab] = useState<Tab>('inbox');
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const qc = useQueryClient();

  const close = useRef(onClose);
  close.current = onClose;

  // Focus moves in once; a click outside the panel (and not on the bell, which toggles it) closes it.
  useEffect(() => {
    panel.current?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]')?.focus();
    const outside = (e: PointerEvent): void => {
      const target = e.target as Node;
      if (panel.current?.contains(target)) return;
      if ((target as Element).closest?.('[aria-controls="bell-panel"]')) return;
      close.current();
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, []);

  const list = useInfiniteQuery({
    queryKey: ['notifications', 'list', tab],
    initialPageParam: 1,
    queryFn: ({ pageParam, signal }) => request<Notice[]>('GET', '/notifications', {
      query: {
        fields: ['id', 'subject', 'message', 'collection', 'item', 'timestamp', 'status'],
        filter: { _and: [OWN, { status: { _eq: tab } }] }, sort: ['-timestamp', '-id'], limit: PAGE, page: pageParam,
      },
      signal,
    }),
    getNextPageParam: (last, all) => (last.length === PAGE ? all.length + 1 : undefined),
  });

  const refresh = () => qc.invalidateQueries({ queryKey: ['notifications'] });
  const move = useMutation({
    mutationFn: (a: { id: number; to: Tab }) => request('PATCH', `/notifications/${a.id}`, { body: { status: a.to } }),
    onSettled: refresh,
  });
  const archiveAll = useMutation({
    mutationFn: () => request('PATCH', '/notifications', {
      body: { query: { filter: { _and: [OWN, { status: { _eq: 'inbox' } }] }, limit: -1 }, data: { status: 'archived' } },
    }),
    onSettled: refresh,
  });

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>): void {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
    }
  }

  function onTabKey(e: KeyboardEvent<HTMLButtonElement>): void {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight' && e.key !== 'Home' && e.key !== 'End') return;
    e.preventDefault();
    const next: Tab = e.key === 'Home' ? 'inbox' : e.key === 'End' ? 'archived' : tab === 'inbox' ? 'archived' : 'inbox';
    setTab(next);
    panel.current?.querySelector<HTMLElement>(`#${CSS.escape(`${titleId}-${next}`)}`)?.focus();
  }

  const notices = list.data?.pages.flat() ?? [];
  const pending = (id: number) => move.isPending && move.variables?.id === id;
  const error = move.error ?? archiveAll.error;

  return (
    <div ref={panel} id="bell-panel" className="bell-panel" role="dialog" aria-modal="false" aria-labelledby={titleId} onKeyDown={onKeyDown}>
      <div className="bell-head">
        <h2 id={titleId}>Notifications</h2>
        {tab === 'inbox' && notices.length > 0 && (
          <button type="button" className="btn btn-small" onClick={() => archiveAll.mutate()} disabled={archiveAll.isPending}>{archiveAll.isPending ? 'Archiving…' : 'Archive all'}</button>
        )}
        <button type="button" className="btn btn-ghost icon-btn" aria-label="Close notifications" onClick={onClose}>✕</button>
      </div>
      <div className="bell-tabs" role="tablist" aria-label="Notifications">
        {(['inbox', 'archived'] as const).map((t) => (
          <button key={t} id={`${titleId}-${t}`} type="button" role="tab" aria-selected={tab === t} aria-controls={`${titleId}-list`} tabIndex={tab === t ? 0 : -1}
            className="bell-tab" onClick={() => setTab(t)} onKeyDown={onTabKey}>
            {t === 'inbox' ? 'Inbox' : 'Archived'}
            {t === 'inbox' && unread > 0 && <span className="bell-tab-count"> ({unread})</span>}
          </button>
        ))}
      </div>
      <div className="bell-body" id={`${titleId}-list`} role="tabpanel" aria-labelledby={`${titleId}-${tab}`}>
        {error && <ErrorNotice error={error} />}
        {list.error ? <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
          : !list.data ? <Loading label="Loading notifications" />
          : notices.length === 0 ? (
            <div className="bell-empty">
              <svg width="28" height="28" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
                <path d="M20 6 9 17l-5-5" />
              </svg>
              <p className="bell-empty-title">{tab === 'inbox' ? 'You are all caught up' : 'Nothing archived'}</p>
              <p className="muted">{tab === 'inbox'
                ? 'Notifications about your work (a review to do, a mention, a message from a workflow) appear here.'
                : 'Notifications you archive are kept here.'}</p>
            </div>
          ) : (
            <>
              <ul className="bell-list" aria-label={tab === 'inbox' ? 'Inbox' : 'Archived notifications'}>
                {notices.map((n) => {
                  const href = itemHref(n);
                  const time = when(n.timestamp);
                  const text = plainText(n.message);
                  return (
                    <li key={n.id} className="bell-item">
                      <div className="bell-item-main">
                        {href ? <Link href={href} className="bell-subject" onClick={onClose}>{n.subject}</Link> : <span className="bell-subject">{n.subject}</span>}
                        {text && <p className="bell-message">{text}</p>}
                        <span className="bell-meta">
                          {time.text && <time dateTime={n.timestamp ?? undefined} title={time.title}>{time.text}</time>}
                          {href && <span className="bell-where"> · {n.collection}</span>}
                        </span>
                      </div>
                      <button type="button" className="btn btn-small btn-ghost" disabled={pending(n.id)} aria-label={`${tab === 'inbox' ? 'Archive' : 'Move to inbox'}: ${n.subject}`}
                        onClick={() => move.mutate({ id: n.id, to: tab === 'inbox' ? 'archived' : 'inbox' })}>
                        {tab === 'inbox' ? 'Archive' : 'Move to inbox'}
                      </button>
                    </li>
                  );
                })}
              </ul>
              {list.hasNextPage && (
                <button type="button" className="btn btn-small bell-more" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                  {list.isFetchingNextPage ? 'Loading…' : 'Show more'}
                </button>
              )}
            </>
          )}
      </div>
    </div>
  );
}
