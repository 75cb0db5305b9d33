/** /admin/review/instances/:id: one review (a workflow instance). Its draft compared with the item as it is now
 * (CompareView, in the "Changes" region); the decisions the signed-in reviewer may take on the active step (the
 * actions_available of their task: approve, reject, delegate, comment; approve no longer once they approved); an
 * admin's cancel of a running review; and the history, in order. Ids of people are shown as names (one request).
 * The instance and the caller's tasks load together; the names follow in one parallel round. After a decision the
 * instance, the inbox and the badges are read again (every query under ['tasks']). */
import { useEffect, useId, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ApiError } from '../../api/errors.ts';
import { useCapabilities } from '../../app/capabilities.ts';
import { useSession } from '../../app/session.tsx';
import { CompareView } from '../../content/item/versions/CompareView.tsx';
import { titleOf } from '../../content/schema.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import {
  cancelInstance, instanceQuery, INSTANCE_STATUS_LABELS, MODE_TEXT, refreshTasks, TASK_ACTIONS, TIMEOUT_TEXT,
  type DecisionResult, type Instance, type InstanceStep, type TaskAction, type WorkflowStep,
} from './data.ts';
import { DecisionDialog, DelegateDialog, type Target } from './DecisionDialogs.tsx';
import { History } from './History.tsx';
import { draftName, personText, useDrafts, useItemTitles, usePeople, type DraftInfo, type Person } from './names.ts';
import { When } from './times.tsx';
import './tasks.css';

export default function InstancePage({ id }: { id: string }) {
  return <Review key={id} id={id} />;
}

const DRAFT_STATUS: Record<DraftInfo['status'], string> = { draft: 'Draft', pending: 'In review', approved: 'Approved', rejected: 'Rejected' };

/** Everyone the instance mentions: who started it, the assignees, who approved and who acted. */
function peopleOf(i: Instance): string[] {
  return [
    i.started_by,
    ...i.instance_steps.flatMap((s) => [...(s.assignees ?? []), ...s.approvals.map((a) => a.user)]),
    ...i.actions.flatMap((a) => [a.user_id, a.to_user]),
  ].filter((x): x is string => Boolean(x));
}

function Review({ id }: { id: string }) {
  const caps = useCapabilities();
  const { me } = useSession();
  const instance = useQuery(instanceQuery(id));
  const data = instance.data;
  const itemTitle = useItemTitles(data ? [{ collection: data.collection, item: data.item }] : []);
  const drafts = useDrafts(data ? [data.version_id] : []);
  const people = usePeople(data ? peopleOf(data) : []);

  if (instance.error) {
    const err = instance.error;
    const words = err instanceof ApiError && err.status === 404 ? 'This review does not exist. Its workflow may have been deleted.'
      : err instanceof ApiError && err.status === 403 ? 'You cannot open this review: it is not assigned to you, and viewing workflows is not among your permissions.'
        : null;
    return (
      <div className="main-pane">
        <header className="page-header"><BackLink /><h1>Review</h1></header>
        <div className="page-body">
          {words ? <div className="notice notice-error" role="alert">{words}</div> : <ErrorNotice error={err} onRetry={() => void instance.refetch()} />}
        </div>
      </div>
    );
  }
  if (!data) return <div className="main-pane"><Loading label="Loading the review" /></div>;

  const title = itemTitle({ collection: data.collection, item: data.item });
  const draft = data.version_id ? drafts.get(data.version_id) : undefined;
  const active = data.status === 'running' ? data.instance_steps.find((s) => s.status === 'active') : undefined;
  const step = active ? data.workflow_steps.find((s) => s.id === active.step_id) : undefined;
  // A task of the caller's: the active step lists them among its assignees (what GET /workflow-tasks answers).
  const task = Boolean(active && me && caps.has('workflow:participate') && (active.assignees ?? []).includes(me.id));
  const approvedByMe = Boolean(active && me && active.approvals.some((a) => a.user === me.id));
  let actions: TaskAction[] = task ? TASK_ACTIONS.filter((a) => !(a === 'approve' && approvedByMe)) : [];
  // The API also takes comments from an admin and from whoever submitted it, assignee or not.
  if (!task && active && (caps.admin || (me && data.started_by === me.id))) actions = ['comment'];
  const who = { people, me: me?.id };

  return (
    <div className="main-pane instance-page">
      <header className="page-header instance-header">
        <BackLink />
        <div className="instance-title">
          <h1>{title}</h1>
          <div className="muted instance-sub">{data.workflow_name ?? 'Workflow'} · {titleOf(data.collection)}</div>
        </div>
        <span className={`badge instance-status wf-${data.status}`}><span className="visually-hidden">Review status: </span>{INSTANCE_STATUS_LABELS[data.status] ?? data.status}</span>
        {data.item !== null && (
          <Link href={`~/admin/content/${encodeURIComponent(data.collection)}/${encodeURIComponent(data.item)}`} className="btn btn-small">Open the item</Link>
        )}
      </header>
      <Decision instance={data} active={active} step={step} actions={actions} approvedByMe={approvedByMe} title={title} draft={draft}
        people={people} me={me?.id} admin={caps.admin} />
      <div className="page-body instance-body">
        <Changes instance={data} draft={draft} />
        <section className="instance-history" aria-labelledby="instance-history-heading">
          <h2 id="instance-history-heading">History</h2>
          <History instance={data} who={who} />
        </section>
      </div>
    </div>
  );
}

function BackLink() {
  return <Link href="/tasks" className="btn btn-small btn-ghost instance-back" aria-label="Back to tasks">←</Link>;
}

function Changes({ instance, draft }: { instance: Instance; draft: DraftInfo | undefined }) {
  const headingId = useId();
  return (
    <section className="instance-changes" aria-labelledby={headingId}>
      <div className="instance-changes-head">
        <h2 id={headingId}>Changes</h2>
        {instance.version_id && (
          <span className="muted">
            {draft ? <>Draft {draftName(draft)} <span className={`badge draft-status wf-${draft.status}`}>{DRAFT_STATUS[draft.status]}</span></> : 'The draft'}
            {' '}compared with the item as it is now
          </span>
        )}
      </div>
      {instance.version_id
        ? <CompareView versionId={instance.version_id} collection={instance.collection} />
        : <p className="muted">This review is not about a draft, so there are no changes to compare.</p>}
    </section>
  );
}

/** What the state of the review means for the reader, and the decisions they may take. */
function Decision({ instance, active, step, actions, approvedByMe, title, draft, people, me, admin }: {
  instance: Instance;
  active: InstanceStep | undefined;
  step: WorkflowStep | undefined;
  actions: TaskAction[];
  approvedByMe: boolean;
  title: string;
  draft: DraftInfo | undefined;
  people: Map<string, Person>;
  me: string | undefined;
  admin: boolean;
}) {
  const client = useQueryClient();
  // The step a dialog acts on is kept from when it opened: when the review changes underneath (another reviewer, an
  // admin), the dialog stays with the server's answer while the page behind shows the new state.
  const [open, setOpen] = useState<{ kind: TaskAction | 'cancel'; target: Target | null } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [cancelComment, setCancelComment] = useState('');
  const noticeRef = useRef<HTMLParagraphElement>(null);
  const commentId = useId();
  useEffect(() => { if (notice) noticeRef.current?.focus(); }, [notice]);

  const stepName = step?.name ?? 'This step';
  const target: Target | null = active ? { instance: instance.id, step: active.id, stepName, itemTitle: title } : null;
  const assignees = (active?.assignees ?? []).map((u) => personText(u, people, me)).join(', ') || 'nobody';

  async function done(result: DecisionResult, action: TaskAction, to?: Person): Promise<void> {
    setOpen(null);
    setNotice(outcome(result, action, to));
    await refreshTasks(client);
  }

  let state;
  if (instance.status !== 'running') {
    state = <p className="decision-text">{ended(instance, draft)} <When at={instance.completed_at} />.</p>;
  } else if (!active) {
    state = <p className="decision-text">The review is moving to its next step.</p>;
  } else {
    const mode = step?.type === 'approval' ? ` ${capital(MODE_TEXT[step.approval_mode])}.` : '';
    const timeout = active.timeout_at ? <> Times out <When at={active.timeout_at} />{step?.timeout_action ? `, ${TIMEOUT_TEXT[step.timeout_action]}` : ''}.</> : null;
    const reached = <> Reached <When at={active.activated_at} />.</>;
    state = actions.includes('approve') || actions.includes('reject')
      ? <p className="decision-text"><strong>{stepName}</strong> waits for your decision.{reached}{mode}{timeout}</p>
      : approvedByMe
        ? <p className="decision-text">You approved <strong>{stepName}</strong>; it waits for the others ({assignees}).{mode}{timeout}</p>
        : <p className="decision-text"><strong>{stepName}</strong> waits for {assignees}.{reached}{mode}{timeout}</p>;
  }
  const canCancel = admin && instance.status === 'running';
  const show = (kind: TaskAction | 'cancel') => {
    setNotice(null);
    setOpen({ kind, target });
  };
  const refused = () => void refreshTasks(client);

  return (
    <section className="instance-decision" aria-label="Review status">
      {notice && <p className="notice notice-success decision-notice" role="status" tabIndex={-1} ref={noticeRef}>{notice}</p>}
      <div className="decision-row">
        {state}
        {(actions.length > 0 || canCancel) && (
          <div className="decision-actions">
            {actions.includes('approve') && <button type="button" className="btn btn-primary" onClick={() => show('approve')}>Approve…</button>}
            {actions.includes('reject') && <button type="button" className="btn btn-danger" onClick={() => show('reject')}>Reject…</button>}
            {actions.includes('delegate') && <button type="button" className="btn" onClick={() => show('delegate')}>Delegate…</button>}
            {actions.includes('comment') && <button type="button" className="btn" onClick={() => show('comment')}>Comment…</button>}
            {canCancel && <button type="button" className="btn btn-ghost decision-cancel" onClick={() => show('cancel')}>Cancel review…</button>}
          </div>
        )}
      </div>
      {open?.target && (open.kind === 'approve' || open.kind === 'reject' || open.kind === 'comment') && (
        <DecisionDialog kind={open.kind} target={open.target} onClose={() => setOpen(null)} onDone={(r, a) => void done(r, a)} onRefused={refused} />
      )}
      {open?.target && open.kind === 'delegate' && me && (
        <DelegateDialog target={open.target} exclude={[...new Set([me, ...(active?.assignees ?? [])])]} onClose={() => setOpen(null)}
          onDone={(r, a, to) => void done(r, a, to)} onRefused={refused} />
      )}
      {open?.kind === 'cancel' && (
        <ConfirmDialog title="Cancel this review?" confirmLabel="Cancel review" cancelLabel="Keep reviewing" onClose={() => setOpen(null)}
          onConfirm={async () => {
            await cancelInstance(instance.id, cancelComment).catch((err: unknown) => {
              refused();
              throw err;
            });
            setOpen(null);
            setCancelComment('');
            setNotice(`The review is cancelled. ${instance.version_id ? `${capital(draftName(draft))} is a draft again: its author can change it and submit it again.` : ''}`.trim());
            await refreshTasks(client);
          }}>
          <p>The review of <strong>{title}</strong> stops here and its open steps are closed. {instance.version_id ? 'The draft goes back to its author as a draft; the item stays as it is.' : ''}</p>
          <div className="field">
            <label htmlFor={commentId}>Comment (optional)</label>
            <textarea id={commentId} value={cancelComment} maxLength={10_000} onChange={(e) => setCancelComment(e.target.value)}
              aria-describedby={`${commentId}-note`} />
            <p className="field-note" id={`${commentId}-note`}>Say why, for the reviewers and the author: it is kept in the history.</p>
          </div>
        </ConfirmDialog>
      )}
    </section>
  );
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function ended(instance: Instance, draft: DraftInfo | undefined): string {
  const d = capital(draftName(draft));
  switch (instance.status) {
    case 'approved': return instance.version_id ? `Approved: ${d} was applied to the item` : 'Approved';
    case 'rejected': return instance.version_id ? `Rejected: ${d} went back to its author` : 'Rejected';
    case 'cancelled': return instance.version_id ? `Cancelled: ${d} went back to its author as a draft` : 'Cancelled';
    default: return 'Ended';
  }
}

function outcome(r: DecisionResult, action: TaskAction, to?: Person): string {
  switch (action) {
    case 'approve':
      if (r.instance_status === 'approved') return 'You approved it. The review is complete and the draft was applied to the item.';
      if (r.status === 'approved') return 'You approved this step; the review moves on to its next step.';
      return 'You approved it. The step waits for the other reviewers.';
    case 'reject':
      return r.instance_status === 'running'
        ? 'You rejected the draft. It went back to its author, and the review moved on to its next step.'
        : 'You rejected the draft. It went back to its author, who can change it and submit it again.';
    case 'delegate': {
      const name = to ? [to.first_name, to.last_name].filter(Boolean).join(' ') || to.email || 'the person you chose' : 'the person you chose';
      return `The task is now with ${name}; it left your tasks.`;
    }
    default:
      return 'Your comment was added to the history.';
  }
}
