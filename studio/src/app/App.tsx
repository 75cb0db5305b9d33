/** Routes under /admin. The sign-in pages are part of the first load; the signed-in modules (content, files,
 * profile) are loaded when first opened, the one of the address the Studio opens at while the session is checked.
 * A signed-out visitor is sent to the sign-in page and comes back where they were; a password set by an admin sends
 * the user to the change screen first. */
import { Suspense, useEffect } from 'react';
import { Redirect, Route, Router, Switch, useLocation } from 'wouter';
import { SessionProvider, useSession } from './session.tsx';
import { ProjectProvider } from './project.tsx';
import { Shell } from './Shell.tsx';
import { LoginPage } from '../auth/LoginPage.tsx';
import { ResetPasswordPage } from '../auth/ResetPasswordPage.tsx';
import { AcceptInvitePage } from '../auth/AcceptInvitePage.tsx';
import { ChangePasswordPage } from '../auth/ChangePasswordPage.tsx';
import { Loading } from '../ui/Loading.tsx';
import { useAppearance } from './appearance.ts';
import { useLastPage } from './last-page.ts';
import { preloadable } from './lazy.ts';
import { STUDIO_PREFETCH } from './prefetch.ts';

const ContentModule = preloadable(() => import('../content/ContentModule.tsx'), <Loading label="Loading" />);
const FilesModule = preloadable(() => import('../files/FilesModule.tsx'), <Loading label="Loading" />);
const ProfileModule = preloadable(() => import('../profile/ProfileModule.tsx'), <Loading label="Loading" />);

// The module of the address being opened loads beside the session check instead of after it.
const opening = /^\/admin\/(content|files|profile)(\/|$)/.exec(location.pathname)?.[1];
if (opening === 'content') void ContentModule.preload();
else if (opening === 'files') void FilesModule.preload();
else if (opening === 'profile') void ProfileModule.preload();

export function App() {
  return (
    <Router base="/admin">
      <ProjectProvider>
        <SessionProvider prefetch={STUDIO_PREFETCH}>
          <Routes />
        </SessionProvider>
      </ProjectProvider>
    </Router>
  );
}

function Routes() {
  const { status, me, mustChangePassword } = useSession();
  const [location] = useLocation();
  useAppearance(me?.appearance ?? null);
  useLastPage(status === 'signed-in' ? location : null);

  if (status === 'loading') return <Loading label="Starting the Studio" />;
  if (status === 'signed-out') {
    return (
      <Switch>
        <Route path="/login" component={LoginPage} />
        <Route path="/reset-password" component={ResetPasswordPage} />
        <Route path="/accept-invite" component={AcceptInvitePage} />
        <Route><ToLogin /></Route>
      </Switch>
    );
  }
  if (mustChangePassword || me?.require_password_change) return <ChangePasswordPage />;
  return (
    <Shell>
      <Suspense fallback={<Loading label="Loading" />}>
        <Switch>
          <Route path="/login"><AfterSignIn /></Route>
          <Route path="/content" nest><ContentModule /></Route>
          <Route path="/files" nest><FilesModule /></Route>
          <Route path="/profile" nest><ProfileModule /></Route>
          <Route path="/"><Redirect to="/content" replace /></Route>
          <Route><NotFound /></Route>
        </Switch>
      </Suspense>
    </Shell>
  );
}

/** Remembers where a signed-out visitor was headed. */
function ToLogin() {
  const [location] = useLocation();
  const next = location !== '/' && location !== '/login' ? `?next=${encodeURIComponent(location)}` : '';
  return <Redirect to={`/login${next}`} replace />;
}

/** After signing in: back to where the visitor was headed, else the page they last had open. */
function AfterSignIn() {
  const { me } = useSession();
  const [, navigate] = useLocation();
  useEffect(() => {
    const next = new URLSearchParams(location.search).get('next');
    const target = safeStudioPath(next) ?? safeStudioPath(me?.last_page ?? null) ?? '/content';
    navigate(target, { replace: true });
  }, [me, navigate]);
  return <Loading label="Signing in" />;
}

/** A path inside the Studio (never another origin, never the sign-in pages). */
export function safeStudioPath(path: string | null): string | null {
  if (!path || !path.startsWith('/') || path.startsWith('//') || path.startsWith('/login')) return null;
  return path;
}

function NotFound() {
  return (
    <main className="page-message" aria-labelledby="nf-title">
      <h1 id="nf-title">Page not found</h1>
      <p>There is nothing at this address. Pick a collection on the left.</p>
    </main>
  );
}
