/** /admin/review: the editorial process. Tasks waiting for the signed-in reviewer (with their count), each opening
 * its version's comparison with approve / reject / delegate / comment and the instance's history; all tasks for
 * admins; the workflow designer (workflow:manage, read-only with workflow:view); the schedule of timed publishing.
 * Each section is offered to the users it serves and loads when first opened. */
import { Redirect, Route, Switch } from 'wouter';
import { preloadable } from '../app/lazy.ts';
import { useCapabilities } from '../app/capabilities.ts';
import { Loading } from '../ui/Loading.tsx';
import { SectionLayout, type Section } from '../ui/SectionLayout.tsx';
import { useTaskCount } from './task-count.ts';
import './review.css';

const pane = <div className="main-pane"><Loading label="Loading" /></div>;
const TasksPage = preloadable(() => import('./tasks/TasksPage.tsx'), pane);
const InstancePage = preloadable<{ id: string }>(() => import('./tasks/InstancePage.tsx'), pane);
const WorkflowsPage = preloadable(() => import('./workflows/WorkflowsPage.tsx'), pane);
const DesignerPage = preloadable<{ id: string }>(() => import('./workflows/DesignerPage.tsx'), pane);
const SchedulePage = preloadable(() => import('./schedule/SchedulePage.tsx'), pane);

// The page of the address being opened loads with this module.
const opening = /^\/admin\/review\/(tasks|instances|workflows|schedule)(\/[^/]+)?/.exec(location.pathname);
if (opening?.[1] === 'tasks') void TasksPage.preload();
else if (opening?.[1] === 'instances') void InstancePage.preload();
else if (opening?.[1] === 'workflows') void (opening[2] ? DesignerPage : WorkflowsPage).preload();
else if (opening?.[1] === 'schedule') void SchedulePage.preload();

export default function ReviewModule() {
  const caps = useCapabilities();
  const reviewer = caps.has('workflow:participate');
  const tasks = useTaskCount(reviewer);
  const sections: Section[] = [];
  if (reviewer || caps.admin) {
    const count = tasks.data ?? 0;
    sections.push({ href: '/tasks', also: ['/instances'], label: caps.admin ? 'Tasks' : 'Your tasks', badge: { count, label: `${count} waiting` } });
  }
  if (caps.has('workflow:view') || caps.has('workflow:manage')) sections.push({ href: '/workflows', label: 'Workflows' });
  if (caps.has('versioning:view')) sections.push({ href: '/schedule', label: 'Scheduled publishing' });
  if (!caps.ready) return <Loading label="Loading" />;
  return (
    <SectionLayout title="Review" sections={sections}>
      <Switch>
        <Route path="/"><Redirect to={sections[0]?.href ?? '/tasks'} replace /></Route>
        <Route path="/tasks"><TasksPage /></Route>
        <Route path="/instances/:id">{(p: { id: string }) => <InstancePage id={decodeURIComponent(p.id)} />}</Route>
        <Route path="/workflows"><WorkflowsPage /></Route>
        <Route path="/workflows/:id">{(p: { id: string }) => <DesignerPage id={decodeURIComponent(p.id)} />}</Route>
        <Route path="/schedule"><SchedulePage /></Route>
        <Route>
          <div className="main-pane"><div className="page-message"><h1>Page not found</h1><p>There is nothing at this address. Pick a section on the left.</p></div></div>
        </Route>
      </Switch>
    </SectionLayout>
  );
}
