/** The sidebar of an existing item, a complementary region beside the form that folds away: the item's comments
 * and its revisions (tabs, each shown when the caller may read svc_comments / svc_revisions; arrow keys move
 * between them). The open/closed state is kept for the session. */
import { useRef, useState, type KeyboardEvent } from 'react';
import type { EditorContext } from '../ItemPage.tsx';
import { can } from '../../schema.ts';
import type { FieldInfo } from '../model.ts';
import { Comments } from './Comments.tsx';
import { Revisions } from './Revisions.tsx';

export interface SidebarProps {
  ctx: EditorContext;
  id: string;
  current: Record<string, unknown>;
  infos: FieldInfo[];
  mayUpdate(field: string): boolean;
  onReverted(): Promise<void>;
  dirty: boolean;
}

const ALL_TABS = [{ key: 'comments', label: 'Comments', collection: 'svc_comments' }, { key: 'revisions', label: 'Revisions', collection: 'svc_revisions' }] as const;
type Tab = (typeof ALL_TABS)[number]['key'];

/** The sidebar, with the tabs the caller may read (nothing at all when it may read neither). */
export function Sidebar(props: SidebarProps) {
  const { perms, admin } = props.ctx;
  const TABS = ALL_TABS.filter((t) => can(perms, admin, t.collection, 'read'));
  if (TABS.length === 0) return null;
  return <SidebarPanel {...props} tabs={TABS} />;
}

function SidebarPanel(props: SidebarProps & { tabs: (typeof ALL_TABS)[number][] }) {
  const TABS = props.tabs;
  const { perms, admin } = props.ctx;
  const [open, setOpen] = useState(() => sessionStorage.getItem('studio.item-sidebar') !== 'closed');
  const [chosen, setTab] = useState<Tab>(TABS[0].key);
  const tab = TABS.some((t) => t.key === chosen) ? chosen : TABS[0].key;
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});
  const toggle = () => {
    setOpen((o) => {
      sessionStorage.setItem('studio.item-sidebar', o ? 'closed' : 'open');
      return !o;
    });
  };
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const i = TABS.findIndex((t) => t.key === tab);
    let next = -1;
    if (e.key === 'ArrowRight') next = (i + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + TABS.length) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    if (next < 0) return;
    e.preventDefault();
    setTab(TABS[next].key);
    tabRefs.current[TABS[next].key]?.focus();
  };
  return (
    <aside className={`item-sidebar${open ? '' : ' closed'}`} aria-label="Comments and revisions">
      {open ? (
        <div className="sidebar-body">
          <div className="sidebar-top">
            <div role="tablist" aria-label="Sidebar" className="sidebar-tabs">
              {TABS.map((t) => (
                <button key={t.key} type="button" role="tab" id={`sidebar-tab-${t.key}`} aria-controls={`sidebar-panel-${t.key}`} aria-selected={tab === t.key}
                  tabIndex={tab === t.key ? 0 : -1} ref={(el) => { tabRefs.current[t.key] = el; }} onClick={() => setTab(t.key)} onKeyDown={onTabKey}>
                  {t.label}
                </button>
              ))}
            </div>
            <button type="button" className="btn btn-ghost icon-btn sidebar-toggle" aria-expanded="true" onClick={toggle}
              aria-label="Hide comments and revisions" title="Hide comments and revisions">⇥</button>
          </div>
          <div role="tabpanel" id={`sidebar-panel-${tab}`} aria-labelledby={`sidebar-tab-${tab}`} className="sidebar-panel">
            {tab === 'comments'
              ? <Comments collection={props.ctx.collection} item={props.id} may={{
                create: can(perms, admin, 'svc_comments', 'create'), update: can(perms, admin, 'svc_comments', 'update'), delete: can(perms, admin, 'svc_comments', 'delete'),
              }} />
              : <Revisions {...props} />}
          </div>
        </div>
      ) : (
        <button type="button" className="sidebar-strip" aria-expanded="false" onClick={toggle} aria-label="Show comments and revisions" title="Show comments and revisions">
          <span aria-hidden="true">⇤</span>
          <span className="sidebar-strip-label" aria-hidden="true">Comments · Revisions</span>
        </button>
      )}
    </aside>
  );
}
