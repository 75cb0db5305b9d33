/** What happened in a review, in order: when it was submitted and by whom, then each step as it was reached (its
 * status, who it was assigned to, the approvals with who and when, its timeout), with the log of what people did on
 * it (approve, reject, delegate, comment, with their comments); an admin's cancel closes the list. */
import type { ReactNode } from 'react';
import type { Approval, Instance, InstanceStep, LogEntry, WorkflowStep } from './data.ts';
import { MODE_TEXT, STEP_STATUS_LABELS, TIMEOUT_TEXT } from './data.ts';
import { personText, type Person } from './names.ts';
import { When } from './times.tsx';

interface Who { people: Map<string, Person>; me: string | undefined }

const VERBS: Record<LogEntry['kind'], string> = {
  approve: 'approved', reject: 'rejected', delegate: 'delegated the task', comment: 'commented', cancel: 'cancelled the review', escalate: 'escalated the step',
};

function logLine(e: LogEntry, who: Who): ReactNode {
  const actor = e.user_id === null && (e.kind === 'approve' || e.kind === 'reject' || e.kind === 'escalate')
    ? 'The timeout' : personText(e.user_id, who.people, who.me, true);
  const verb = e.user_id === null && e.kind === 'approve' ? 'approved it automatically'
    : e.user_id === null && e.kind === 'reject' ? 'rejected it automatically'
      : VERBS[e.kind];
  return (
    <>
      <strong>{actor}</strong> {verb}
      {e.kind === 'delegate' && e.to_user && <> to <strong>{personText(e.to_user, who.people, who.me)}</strong></>}
    </>
  );
}

function LogList({ entries, who }: { entries: LogEntry[]; who: Who }) {
  if (entries.length === 0) return null;
  return (
    <ol className="wfh-log" aria-label="What people did">
      {entries.map((e) => (
        <li key={e.id} className={`wfh-entry kind-${e.kind}`}>
          <div className="wfh-entry-line">
            <span>{logLine(e, who)}</span>
            <When at={e.created_at} className="wfh-time" />
          </div>
          {e.comment && <blockquote className="wfh-comment">{e.comment}</blockquote>}
        </li>
      ))}
    </ol>
  );
}

function approvalsText(approvals: Approval[], who: Who): ReactNode {
  return approvals.map((a, i) => (
    <span key={`${a.user}-${a.timestamp}`}>
      {i > 0 && ', '}
      {a.system || a.user === null ? 'the timeout' : personText(a.user, who.people, who.me)} (<When at={a.timestamp} />)
    </span>
  ));
}

function StepItem({ is, step, entries, who }: { is: InstanceStep; step: WorkflowStep | undefined; entries: LogEntry[]; who: Who }) {
  const type = step?.type ?? 'approval';
  const name = step?.name ?? 'A removed step';
  const assignees = is.assignees ?? [];
  if (type === 'start' || type === 'end') {
    return (
      <li className={`wfh-step is-${is.status} type-${type}`}>
        <div className="wfh-step-head">
          <span className="wfh-dot" aria-hidden="true" />
          <span className="wfh-step-name">{type === 'end' ? `Finished: ${name}` : name}</span>
          <When at={is.completed_at ?? is.activated_at} className="wfh-time" />
        </div>
        <LogList entries={entries} who={who} />
      </li>
    );
  }
  return (
    <li className={`wfh-step is-${is.status} type-${type}`}>
      <div className="wfh-step-head">
        <span className="wfh-dot" aria-hidden="true" />
        <span className="wfh-step-name">{name}</span>
        <span className={`badge step-status wf-${is.status}`}>{STEP_STATUS_LABELS[is.status] ?? is.status}</span>
      </div>
      <dl className="wfh-facts">
        {type === 'approval' && step && <><dt>Rule</dt><dd>{MODE_TEXT[step.approval_mode]}</dd></>}
        {assignees.length > 0 && <><dt>Assigned to</dt><dd>{assignees.map((u) => personText(u, who.people, who.me)).join(', ')}</dd></>}
        <dt>Reached</dt><dd><When at={is.activated_at} /></dd>
        {is.approvals.length > 0 && <><dt>Approvals</dt><dd>{approvalsText(is.approvals, who)}</dd></>}
        {is.completed_at && <><dt>{STEP_STATUS_LABELS[is.status] ?? 'Ended'}</dt><dd><When at={is.completed_at} /></dd></>}
        {is.status === 'active' && is.timeout_at && (
          <><dt>Times out</dt><dd><When at={is.timeout_at} />{step?.timeout_action ? `, ${TIMEOUT_TEXT[step.timeout_action]}` : ''}</dd></>
        )}
      </dl>
      <LogList entries={entries} who={who} />
    </li>
  );
}

export function History({ instance, who }: { instance: Instance; who: Who }) {
  const steps = new Map(instance.workflow_steps.map((s) => [s.id, s]));
  const byStep = new Map<string, LogEntry[]>();
  const loose: LogEntry[] = [];
  for (const e of instance.actions) {
    if (e.instance_step_id && instance.instance_steps.some((s) => s.id === e.instance_step_id)) {
      if (!byStep.has(e.instance_step_id)) byStep.set(e.instance_step_id, []);
      byStep.get(e.instance_step_id)!.push(e);
    } else loose.push(e);
  }
  return (
    <ol className="wfh">
      <li className="wfh-step type-submitted">
        <div className="wfh-step-head">
          <span className="wfh-dot" aria-hidden="true" />
          <span className="wfh-step-name"><strong>{personText(instance.started_by, who.people, who.me, true)}</strong> {instance.version_id ? 'submitted the draft' : 'started the review'}</span>
          <When at={instance.started_at} className="wfh-time" />
        </div>
      </li>
      {instance.instance_steps
        // The start step passes at once; the submission above stands for it.
        .filter((is) => steps.get(is.step_id)?.type !== 'start' || byStep.has(is.id))
        .map((is) => <StepItem key={is.id} is={is} step={steps.get(is.step_id)} entries={byStep.get(is.id) ?? []} who={who} />)}
      {loose.length > 0 && (
        <li className="wfh-step type-instance">
          <LogList entries={loose} who={who} />
        </li>
      )}
    </ol>
  );
}
