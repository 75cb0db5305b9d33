/** /admin/settings (administrators): the project's settings (identity, sign-in page, security, registration, uploads,
 * custom CSS), storage, image presets, the extensions loaded, the MCP server for AI agents, the activity log and the
 * server's health. Each section's code loads when first opened, the one of the address being opened beside this
 * module. */
import { Redirect, Route, Switch } from 'wouter';
import { preloadable } from '../app/lazy.ts';
import { Loading } from '../ui/Loading.tsx';
import { SectionLayout, type Section } from '../ui/SectionLayout.tsx';
import './settings.css';

const pane = <div className="main-pane"><Loading label="Loading" /></div>;
const PAGES = {
  project: preloadable(() => import('./ProjectPage.tsx'), pane),
  storage: preloadable(() => import('./StoragePage.tsx'), pane),
  assets: preloadable(() => import('./PresetsPage.tsx'), pane),
  extensions: preloadable(() => import('./ExtensionsPage.tsx'), pane),
  activity: preloadable(() => import('./ActivityPage.tsx'), pane),
  ai: preloadable(() => import('./McpPage.tsx'), pane),
  server: preloadable(() => import('./ServerPage.tsx'), pane),
};
type Page = keyof typeof PAGES;

const SECTIONS: (Section & { page: Page })[] = [
  { href: '/project', label: 'Project', page: 'project' },
  { href: '/storage', label: 'Storage', page: 'storage' },
  { href: '/assets', label: 'Image presets', page: 'assets' },
  { href: '/extensions', label: 'Extensions', page: 'extensions' },
  { href: '/ai', label: 'AI agents', page: 'ai' },
  { href: '/activity', label: 'Activity', page: 'activity' },
  { href: '/server', label: 'Server', page: 'server' },
];

// The page of the address being opened loads with this module.
const opening = /^\/admin\/settings\/([a-z]+)/.exec(location.pathname)?.[1] ?? 'project';
if (opening in PAGES) void PAGES[opening as Page].preload();

export default function SettingsModule() {
  return (
    <SectionLayout title="Settings" sections={SECTIONS}>
      <Switch>
        <Route path="/"><Redirect to="/project" replace /></Route>
        {SECTIONS.map((s) => {
          const Page = PAGES[s.page];
          return <Route key={s.href} path={s.href}><Page /></Route>;
        })}
        <Route>
          <div className="main-pane"><div className="page-message"><h1>Page not found</h1><p>There is nothing at this address. Pick a section on the left.</p></div></div>
        </Route>
      </Switch>
    </SectionLayout>
  );
}
