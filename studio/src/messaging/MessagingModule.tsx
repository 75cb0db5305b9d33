/** /admin/messaging (admins): the notification module. Send logs with their stats, delivery events and cancel;
 * templates with their contents per provider and locale, edited beside a live rendered preview; layouts likewise;
 * providers per channel (primary, test-send, webhooks); the module's settings. Each section loads when first opened. */
import { Redirect, Route, Switch } from 'wouter';
import { preloadable } from '../app/lazy.ts';
import { Loading } from '../ui/Loading.tsx';
import { SectionLayout, type Section } from '../ui/SectionLayout.tsx';
import './messaging.css';

const pane = <div className="main-pane"><Loading label="Loading" /></div>;
const LogsPage = preloadable(() => import('./logs/LogsPage.tsx'), pane);
const LogPage = preloadable<{ id: string }>(() => import('./logs/LogPage.tsx'), pane);
const TemplatesPage = preloadable(() => import('./templates/TemplatesPage.tsx'), pane);
const TemplatePage = preloadable<{ id: string }>(() => import('./templates/TemplatePage.tsx'), pane);
const ContentPage = preloadable<{ templateId: string; contentId: string }>(() => import('./templates/ContentPage.tsx'), pane);
const LayoutsPage = preloadable(() => import('./layouts/LayoutsPage.tsx'), pane);
const LayoutPage = preloadable<{ id: string }>(() => import('./layouts/LayoutPage.tsx'), pane);
const ProvidersPage = preloadable(() => import('./providers/ProvidersPage.tsx'), pane);
const SettingsPage = preloadable(() => import('./settings/SettingsPage.tsx'), pane);

// The page of the address being opened loads with this module.
const opening = /^\/admin\/messaging\/(logs|templates|layouts|providers|settings)(\/[^/]+)?(\/contents\/[^/]+)?/.exec(location.pathname);
if (opening) {
  const [, section, one, content] = opening;
  if (section === 'logs') void (one ? LogPage : LogsPage).preload();
  else if (section === 'templates') void (content ? ContentPage : one ? TemplatePage : TemplatesPage).preload();
  else if (section === 'layouts') void (one ? LayoutPage : LayoutsPage).preload();
  else if (section === 'providers') void ProvidersPage.preload();
  else void SettingsPage.preload();
}

const SECTIONS: Section[] = [
  { href: '/logs', label: 'Send logs' },
  { href: '/templates', label: 'Templates' },
  { href: '/layouts', label: 'Layouts' },
  { href: '/providers', label: 'Providers' },
  { href: '/settings', label: 'Settings' },
];

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export default function MessagingModule() {
  return (
    <SectionLayout title="Messaging" sections={SECTIONS}>
      <div className="messaging">
      <Switch>
        <Route path="/"><Redirect to="/logs" replace /></Route>
        <Route path="/logs"><LogsPage /></Route>
        <Route path="/logs/:id">{(p: { id: string }) => <LogPage id={decode(p.id)} />}</Route>
        <Route path="/templates"><TemplatesPage /></Route>
        <Route path="/templates/:id">{(p: { id: string }) => <TemplatePage id={decode(p.id)} />}</Route>
        <Route path="/templates/:id/contents/:content">
          {(p: { id: string; content: string }) => <ContentPage templateId={decode(p.id)} contentId={decode(p.content)} />}
        </Route>
        <Route path="/layouts"><LayoutsPage /></Route>
        <Route path="/layouts/:id">{(p: { id: string }) => <LayoutPage id={decode(p.id)} />}</Route>
        <Route path="/providers"><ProvidersPage /></Route>
        <Route path="/settings"><SettingsPage /></Route>
        <Route>
          <div className="main-pane"><div className="page-message"><h1>Page not found</h1><p>There is nothing at this address. Pick a section on the left.</p></div></div>
        </Route>
      </Switch>
      </div>
    </SectionLayout>
  );
}
