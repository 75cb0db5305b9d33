/** Routes under /admin. The sign-in pages are part of the first load; the signed-in modules (./modules.tsx) are
 * loaded when first opened, the one of the address the Studio opens at while the session is checked.
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
import { useCapabilities } from './capabilities.ts';
import { MODULES, moduleOf, offered, type StudioModule } from './modules.tsx';
import { STUDIO_PREFETCH } from './prefetch.ts';

// The module of the address being opened loads beside the session check instead of after it.
void moduleOf(location.pathname)?.component.preload();

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
          {MODULES.map((m) => (
            <Route key={m.path} path={m.path} nest><Guarded module={m} /></Route>
          ))}
          <Route path="/"><Redirect to="/content" replace /></Route>
          <Route><NotFound /></Route>
        </Switch>
      </Suspense>
    </Shell>
  );
}

/** A module, once it is known that this user is offered it (an address typed by hand may name one they are not). */
function Guarded({ module }: { module: StudioModule }) {
  const caps = useCapabilities();
  if (module.visible && !caps.ready) return <Loading label="Loading" />;
  if (!offered(module, caps)) {
    return (
      <main className="page-message" aria-labelledby="na-title">
        <h1 id="na-title">No access to {module.label}</h1>
        <p>Your role does not include this part of the Studio. Ask an administrator if you need it.</p>
      </main>
    );
  }
  const Component = module.component;
  return <Component />;
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
