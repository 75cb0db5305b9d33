/** The frame around every signed-in screen: the module bar (the modules this user is offered, the notification
 * bell, sign out) and the module's own area. A skip link jumps past the navigation for keyboard users. */
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { Bell } from '../inbox/Bell.tsx';
import { useTaskCount } from '../review/task-count.ts';
import { useCapabilities } from './capabilities.ts';
import { MODULES, offered } from './modules.tsx';
import { assetUrl, useProject } from './project.tsx';
import { useSession } from './session.tsx';

export function Shell({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const project = useProject();
  const { me, signOut } = useSession();
  const caps = useCapabilities();
  const tasks = useTaskCount(caps.ready && caps.has('workflow:participate'));
  const shown = MODULES.filter((m) => offered(m, caps));
  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to content</a>
      <nav className="module-bar" aria-label="Modules">
        {project.logo
          ? <img className="project-mark project-logo" src={assetUrl(project.logo, { width: 72, height: 72, fit: 'inside' })} alt="" title={project.name} />
          : <div className="project-mark" title={project.name} aria-hidden="true">{project.name.slice(0, 1).toUpperCase()}</div>}
        <ul>
          {shown.map((m) => {
            const active = location === m.path || location.startsWith(`${m.path}/`);
            const count = m.taskBadge ? tasks.data ?? 0 : 0;
            return (
              <li key={m.path}>
                <Link href={m.path} className={active ? 'module active' : 'module'} aria-current={active ? 'page' : undefined} title={m.label}>
                  <span aria-hidden="true" className="module-icon">{m.icon}</span>
                  <span className="module-label">{m.label}</span>
                  {count > 0 && (
                    <span className="badge count-badge"><span aria-hidden="true">{count > 99 ? '99+' : count}</span><span className="visually-hidden">, {count} {count === 1 ? 'task' : 'tasks'} waiting</span></span>
                  )}
                </Link>
              </li>
            );
          })}
        </ul>
        <div className="module-bar-end">
          <Bell />
          <button type="button" className="module sign-out" onClick={() => void signOut()} title={`Sign out ${me?.email ?? ''}`}>
            <span aria-hidden="true" className="module-icon">⎋</span>
            <span className="module-label">Sign out</span>
          </button>
        </div>
      </nav>
      <div className="module-area" id="main" tabIndex={-1}>{children}</div>
    </div>
  );
}
