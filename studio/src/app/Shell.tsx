/** The frame around every signed-in screen: the module bar (content, files, profile, sign out) and the module's
 * own area. A skip link jumps past the navigation for keyboard users. */
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useProject } from './project.tsx';
import { useSession } from './session.tsx';

const MODULES = [
  { href: '/content', label: 'Content', icon: '▤' },
  { href: '/files', label: 'File library', icon: '▣' },
  { href: '/profile', label: 'Your profile', icon: '◉' },
] as const;

export function Shell({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const project = useProject();
  const { me, signOut } = useSession();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to content</a>
      <nav className="module-bar" aria-label="Modules">
        <div className="project-mark" title={project.name} aria-hidden="true">{project.name.slice(0, 1).toUpperCase()}</div>
        <ul>
          {MODULES.map((m) => {
            const active = location === m.href || location.startsWith(`${m.href}/`);
            return (
              <li key={m.href}>
                <Link href={m.href} className={active ? 'module active' : 'module'} aria-current={active ? 'page' : undefined} title={m.label}>
                  <span aria-hidden="true" className="module-icon">{m.icon}</span>
                  <span className="module-label">{m.label}</span>
                </Link>
              </li>
            );
          })}
        </ul>
        <button type="button" className="module sign-out" onClick={() => void signOut()} title={`Sign out ${me?.email ?? ''}`}>
          <span aria-hidden="true" className="module-icon">⎋</span>
          <span className="module-label">Sign out</span>
        </button>
      </nav>
      <div className="module-area" id="main" tabIndex={-1}>{children}</div>
    </div>
  );
}
