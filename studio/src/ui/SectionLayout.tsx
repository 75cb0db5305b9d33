/** The frame of a module with sections (review, data model, access, messaging, settings): a navigation pane naming
 * the module and listing its sections, beside the section's own screen. Paths are relative to the module's nested
 * router; a section is current at its path and below it. */
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';

export interface Section {
  href: string;
  label: string;
  /** Other paths that belong to this section (a review opened from the task list, say). */
  also?: string[];
  /** A count shown beside the label (a number of tasks, say), with its meaning for screen readers. */
  badge?: { count: number; label: string } | null;
}

export function SectionLayout({ title, sections, children, navExtra }: { title: string; sections: Section[]; children: ReactNode; navExtra?: ReactNode }) {
  const [location] = useLocation();
  const under = (href: string): boolean => location === href || (href !== '/' && location.startsWith(`${href}/`));
  const current = (s: Section): boolean => under(s.href) || (s.also ?? []).some(under);
  return (
    <div className="module-layout section-module">
      <nav className="nav-pane section-nav" aria-label={title}>
        <h2>{title}</h2>
        <ul className="nav-list">
          {sections.map((s) => (
            <li key={s.href}>
              <Link href={s.href} className="nav-item" aria-current={current(s) ? 'page' : undefined}>
                <span className="nav-label">{s.label}</span>
                {s.badge && s.badge.count > 0 && (
                  <span className="badge count-badge"><span aria-hidden="true">{s.badge.count}</span><span className="visually-hidden">{s.badge.label}</span></span>
                )}
              </Link>
            </li>
          ))}
        </ul>
        {navExtra}
      </nav>
      <main className="section-main">{children}</main>
    </div>
  );
}
