/** /admin/review/tasks: the review inbox. A reviewer's tasks (GET /workflow-tasks, workflow:participate): the item
 * under review (its title, collection and draft), the workflow and step, since when it waits and when it times
 * out, oldest first; each opens its instance. Admins switch to every reviewer's tasks (GET /workflow-tasks/all,
 * with the assignees); the choice lives in the address (?view=all). Paged on the server, with the count of them
 * all. Names come in one parallel round after the page. */
import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { useCapabilities } from '../../app/capabilities.ts';
import { useSession } from '../../app/session.tsx';
import { titleOf } from '../../content/schema.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { tasksQuery, type Task } from './data.ts';
import { draftName, personText, useDrafts, useItemTitles, usePeople } from './names.ts';
import { Since, Timeout } from './times.tsx';
import './tasks.css';

const count = new Intl.NumberFormat();

export default function TasksPage() {
  const caps = useCapabilities();
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const all = caps.admin && search.get('view') === 'all';
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const tasks = useQuery({ ...tasksQuery(all, page, limit), enabled: all || caps.has('workflow:participate'), placeholderData: keepPreviousData });
  const rows = tasks.data?.data ?? [];
  const names = useTaskNames(rows, all);
  const setView = (next: 'mine' | 'all') => { setPage(1); navigate(next === 'all' ? '/tasks?view=all' : '/tasks', { replace: true }); };
  const pages = Math.max(1, Math.ceil((tasks.data?.total ?? 0) / limit));
  // Decisions empty the last page: step back to the one that is left.
  useEffect(() => { if (tasks.data && page > pages) setPage(pages); }, [tasks.data, page, pages]);

  return (
    <div className="main-pane tasks-page">
      <header className="page-header">
        <h1>{all ? 'All tasks' : 'Your tasks'}</h1>
        {caps.admin && (
          <div className="tasks-switch" role="group" aria-label="Whose tasks">
            <button type="button" className="btn btn-small" aria-pressed={!all} onClick={() => setView('mine')}>Yours</button>
            <button type="button" className="btn btn-small" aria-pressed={all} onClick={() => setView('all')}>All reviewers</button>
          </div>
        )}
      </header>
      <div className="page-body tasks-body">
        {caps.ready && !all && !caps.has('workflow:participate') ? (
          <div className="notice notice-warning" role="status">Reviewing is not among your permissions (it needs workflow:participate), so no tasks come to you.</div>
        ) : tasks.error ? <ErrorNotice error={tasks.error} onRetry={() => void tasks.refetch()} />
          : !tasks.data ? <Loading label="Loading tasks" />
            : tasks.data.total === 0 ? <Empty all={all} />
              : (
                <>
                  <p className="tasks-summary" aria-live="polite">
                    {tasks.data.total === 1 ? 'One task waits' : `${count.format(tasks.data.total)} tasks wait`}{all ? ' across reviewers' : ' for you'}, the oldest first.
                  </p>
                  <div className="table-wrap">
                    <table className="grid tasks-table" aria-busy={tasks.isFetching || undefined}>
                      <caption className="visually-hidden">{all ? 'All review tasks' : 'Your review tasks'}</caption>
                      <thead>
                        <tr>
                          <th scope="col">Item</th>
                          <th scope="col">Workflow and step</th>
                          {all && <th scope="col">Assigned to</th>}
                          <th scope="col">Arrived</th>
                          <th scope="col">Times out</th>
                        </tr>
                      </thead>
                      <tbody>
                        {rows.map((t) => (
                          <Row key={t.id} task={t} names={names} all={all} onOpen={() => navigate(`/instances/${t.instance_id}`)} />
                        ))}
                      </tbody>
                    </table>
                  </div>
                  {tasks.data.total > rows.length || page > 1 ? (
                    <Pager page={page} pages={pages} onPage={setPage} limit={limit} onLimit={(n) => { setLimit(n); setPage(1); }}
                      summary={rangeSummary(page, limit, rows.length, tasks.data.total, 'tasks')} label="Pages of tasks" />
                  ) : null}
                </>
              )}
      </div>
    </div>
  );
}

function Empty({ all }: { all: boolean }) {
  return (
    <div className="tasks-empty" role="status">
      <span className="tasks-empty-mark" aria-hidden="true">✓</span>
      <div>
        <h2>{all ? 'No reviews are running' : 'Nothing is waiting for you'}</h2>
        <p className="muted">
          {all ? 'When someone submits a draft to a workflow, its review steps appear here with their reviewers.'
            : 'When someone submits a draft to a review step assigned to you, it appears here.'}
        </p>
      </div>
    </div>
  );
}

type Names = ReturnType<typeof useTaskNames>;

function useTaskNames(rows: Task[], all: boolean) {
  const { me } = useSession();
  const item = useItemTitles(rows.map((t) => ({ collection: t.collection, item: t.item_id })));
  const drafts = useDrafts(rows.map((t) => t.version_id));
  const people = usePeople(all ? rows.flatMap((t) => t.assignees ?? []) : []);
  return { item, drafts, people, me: me?.id };
}

function Row({ task: t, names, all, onOpen }: { task: Task; names: Names; all: boolean; onOpen(): void }) {
  const title = names.item({ collection: t.collection, item: t.item_id });
  const draft = t.version_id ? names.drafts.get(t.version_id) : undefined;
  const assignees = t.assignees ?? [];
  return (
    <tr className="tasks-row" onClick={(e) => { if (!(e.target as HTMLElement).closest('a')) onOpen(); }}>
      <td className="tasks-item">
        <Link className="row-link" href={`/instances/${t.instance_id}`}>{title}</Link>
        <div className="muted tasks-sub">{titleOf(t.collection)}{t.version_id ? ` · ${draftName(draft)}` : ''}</div>
      </td>
      <td>
        <div>{t.workflow_name}</div>
        <div className="muted tasks-sub">{t.step_name}</div>
      </td>
      {all && (
        <td className="tasks-assignees">
          {assignees.length === 0 ? <span className="muted">Nobody</span>
            : assignees.map((u) => personText(u, names.people, names.me, true)).join(', ')}
        </td>
      )}
      <td><Since at={t.activated_at} /></td>
      <td><Timeout at={t.timeout_at} /></td>
    </tr>
  );
}
