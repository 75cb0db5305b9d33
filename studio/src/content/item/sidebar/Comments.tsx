/** The item's comments (svc_comments), newest first, with their author and time; a box to add one, and edit and
 * delete on your own. */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';
import { useSession } from '../../../app/session.tsx';
import { ErrorNotice } from '../../../ui/ErrorNotice.tsx';
import { Loading } from '../../../ui/Loading.tsx';
import { ConfirmDialog } from '../ConfirmDialog.tsx';
import { absoluteTime, personName, relativeTime, type Person } from './format.ts';

interface Comment {
  id: string;
  comment: string;
  date_created: string | null;
  date_updated: string | null;
  user_created: Person | string | null;
}

const FIELDS = ['id', 'comment', 'date_created', 'date_updated', 'user_created.id', 'user_created.email', 'user_created.first_name', 'user_created.last_name'];

/** The comments of one item; ItemPage starts it beside the item's own request, so a reload is not a round longer. */
export function commentsQuery(collection: string, item: string) {
  return {
    queryKey: ['comments', collection, item],
    queryFn: ({ signal }: { signal: AbortSignal }) => request<Comment[]>('GET', '/comments', {
      query: { filter: { collection: { _eq: collection }, item: { _eq: item } }, sort: '-date_created', fields: FIELDS, limit: -1 }, signal,
    }),
  };
}

export function Comments({ collection, item, may }: { collection: string; item: string; may: { create: boolean; update: boolean; delete: boolean } }) {
  const { me } = useSession();
  const queryClient = useQueryClient();
  const { queryKey: key } = commentsQuery(collection, item);
  const comments = useQuery(commentsQuery(collection, item));
  const [draft, setDraft] = useState('');
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const [deleting, setDeleting] = useState<Comment | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });

  const add = useMutation({
    mutationFn: (comment: string) => request('POST', '/comments', { body: { collection, item, comment } }),
    onSuccess: async () => { setDraft(''); await refresh(); },
  });
  const edit = useMutation({
    mutationFn: (c: { id: string; text: string }) => request('PATCH', `/comments/${encodeURIComponent(c.id)}`, { body: { comment: c.text } }),
    onSuccess: async () => { setEditing(null); await refresh(); },
  });
  const remove = useMutation({
    mutationFn: (id: string) => request('DELETE', `/comments/${encodeURIComponent(id)}`),
    onSuccess: async () => { setDeleting(null); await refresh(); },
    onError: () => setDeleting(null),
  });

  const mine = (c: Comment) => Boolean(me && c.user_created && (typeof c.user_created === 'string' ? c.user_created : c.user_created.id) === me.id);

  return (
    <div className="comments">
      {may.create && <form className="comment-form" onSubmit={(e) => { e.preventDefault(); if (draft.trim()) add.mutate(draft.trim()); }}>
        <label htmlFor="comment-new" className="visually-hidden">New comment</label>
        <textarea id="comment-new" rows={3} placeholder="Leave a comment…" value={draft} onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); if (draft.trim()) add.mutate(draft.trim()); } }} />
        {add.error && <ErrorNotice error={add.error} />}
        <div className="comment-form-foot">
          <span className="muted">Ctrl+Enter to post</span>
          <button type="submit" className="btn btn-small btn-primary" disabled={!draft.trim() || add.isPending}>{add.isPending ? 'Posting…' : 'Post comment'}</button>
        </div>
      </form>}
      {(edit.error || remove.error) && <ErrorNotice error={edit.error ?? remove.error} />}
      {comments.error ? <ErrorNotice error={comments.error} onRetry={() => void comments.refetch()} /> : !comments.data ? <Loading label="Loading comments" /> : (
        comments.data.length === 0 ? <p className="muted sidebar-empty">No comments yet.</p> : (
          <ul className="comment-list" aria-label="Comments">
            {comments.data.map((c) => (
              <li key={c.id} className="comment">
                <div className="comment-head">
                  <strong>{personName(c.user_created)}</strong>
                  <time dateTime={c.date_created ?? undefined} title={absoluteTime(c.date_created)} className="muted">{relativeTime(c.date_created)}</time>
                  {c.date_updated && c.date_created && Date.parse(c.date_updated) - Date.parse(c.date_created) > 1000 && <span className="muted">(edited)</span>}
                </div>
                {editing?.id === c.id ? (
                  <form className="comment-edit" onSubmit={(e) => { e.preventDefault(); if (editing.text.trim()) edit.mutate({ id: c.id, text: editing.text.trim() }); }}>
                    <label htmlFor={`comment-edit-${c.id}`} className="visually-hidden">Comment text</label>
                    <textarea id={`comment-edit-${c.id}`} rows={3} value={editing.text} autoFocus
                      onChange={(e) => setEditing({ id: c.id, text: e.target.value })}
                      onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); setEditing(null); } }} />
                    <div className="comment-actions">
                      <button type="button" className="btn btn-small btn-ghost" onClick={() => setEditing(null)}>Cancel</button>
                      <button type="submit" className="btn btn-small btn-primary" disabled={!editing.text.trim() || edit.isPending}>Save comment</button>
                    </div>
                  </form>
                ) : (
                  <p className="comment-text">{c.comment}</p>
                )}
                {mine(c) && editing?.id !== c.id && (may.update || may.delete) && (
                  <div className="comment-actions">
                    {may.update && <button type="button" className="btn btn-small btn-ghost" aria-label="Edit comment" onClick={() => setEditing({ id: c.id, text: c.comment })}>Edit</button>}
                    {may.delete && <button type="button" className="btn btn-small btn-ghost" aria-label="Delete comment" onClick={() => setDeleting(c)}>Delete</button>}
                  </div>
                )}
              </li>
            ))}
          </ul>
        )
      )}
      <ConfirmDialog open={deleting !== null} title="Delete this comment?" confirmLabel="Delete comment" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)} onConfirm={() => { if (deleting) remove.mutate(deleting.id); }}>
        <p className="comment-quote">“{deleting?.comment}”</p>
      </ConfirmDialog>
    </div>
  );
}
