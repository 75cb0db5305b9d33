/** /admin/access (administrators): who may do what. Users (invite, create, edit, suspend, reactivate, archive, reset
 * two-factor, delete), roles (flags, parent, policies), policies (details, IP ranges, the permission matrix, app
 * permissions) and "View as", what a chosen user would get as the server resolves it. Each section's code loads when
 * first opened, the one of the address being opened beside this module. */
import { Redirect, Route, Switch } from 'wouter';
import { preloadable } from '../app/lazy.ts';
import { Loading } from '../ui/Loading.tsx';
import { SectionLayout, type Section } from '../ui/SectionLayout.tsx';
import type { PolicyTab } from './policies/PolicyPage.tsx';
import './access.css';

const pane = <div className="main-pane"><Loading label="Loading" /></div>;
const UsersPage = preloadable(() => import('./users/UsersPage.tsx'), pane);
const UserPage = preloadable<{ id: string }>(() => import('./users/UserPage.tsx'), pane);
const RolesPage = preloadable(() => import('./roles/RolesPage.tsx'), pane);
const RolePage = preloadable<{ id: string }>(() => import('./roles/RolePage.tsx'), pane);
const PoliciesPage = preloadable(() => import('./policies/PoliciesPage.tsx'), pane);
const PolicyPage = preloadable<{ id: string; tab: PolicyTab }>(() => import('./policies/PolicyPage.tsx'), pane);
const ViewAsPage = preloadable(() => import('./view-as/ViewAsPage.tsx'), pane);

// The page of the address being opened loads with this module.
const opening = /^\/admin\/access\/(users|roles|policies|view-as)(\/[^/]+)?/.exec(location.pathname);
if (!opening || opening[1] === 'users') void (opening?.[2] ? UserPage : UsersPage).preload();
else if (opening[1] === 'roles') void (opening[2] ? RolePage : RolesPage).preload();
else if (opening[1] === 'policies') void (opening[2] ? PolicyPage : PoliciesPage).preload();
else if (opening[1] === 'view-as') void ViewAsPage.preload();

const SECTIONS: Section[] = [
  { href: '/users', label: 'Users' },
  { href: '/roles', label: 'Roles' },
  { href: '/policies', label: 'Policies' },
  { href: '/view-as', label: 'View as' },
];

const decode = (id: string): string => decodeURIComponent(id);

export default function AccessModule() {
  return (
    <SectionLayout title="Access" sections={SECTIONS}>
      <Switch>
        <Route path="/"><Redirect to="/users" replace /></Route>
        <Route path="/users"><UsersPage /></Route>
        <Route path="/users/:id">{(p: { id: string }) => <UserPage key={p.id} id={decode(p.id)} />}</Route>
        <Route path="/roles"><RolesPage /></Route>
        <Route path="/roles/:id">{(p: { id: string }) => <RolePage key={p.id} id={decode(p.id)} />}</Route>
        <Route path="/policies"><PoliciesPage /></Route>
        <Route path="/policies/:id">{(p: { id: string }) => <PolicyPage key={p.id} id={decode(p.id)} tab="details" />}</Route>
        <Route path="/policies/:id/permissions">{(p: { id: string }) => <PolicyPage key={p.id} id={decode(p.id)} tab="permissions" />}</Route>
        <Route path="/policies/:id/app">{(p: { id: string }) => <PolicyPage key={p.id} id={decode(p.id)} tab="app" />}</Route>
        <Route path="/view-as"><ViewAsPage /></Route>
        <Route>
          <div className="main-pane"><div className="page-message"><h1>Page not found</h1><p>There is nothing at this address. Pick a section on the left.</p></div></div>
        </Route>
      </Switch>
    </SectionLayout>
  );
}
