/** The content module's navigation pane: the caller's readable collections in their folders (collapsible as
 * meta.collapse says; 'locked' folders stay open), the current one marked, each collection's bookmarks under it
 * with rename and delete where the caller may. Singletons open their item directly (the same path). */
import { useEffect, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { messageOf } from '../../api/errors.ts';
import { useSession } from '../../app/session.tsx';
import { bookmarksOf, useBookmarkActions, type Preset } from '../presets.ts';
import { can, titleOf, type Permissions } from '../schema.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { CollectionIcon } from './CollectionIcon.tsx';
import { ancestorsOf, type NavNode } from './tree.ts';

export function CollectionsNav({ tree, presets, perms, admin }: {
  tree: NavNode[];
  presets: Preset[] | undefined;
  perms: Permissions;
  admin: boolean;
}) {
  const [location] = useLocation();
  const search = useSearch();
  const { me } = useSession();
  const current = location.split('/')[1] ?? '';
  const currentBookmark = new URLSearchParams(search).get('bookmark');
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const [editing, setEditing] = useState<{ kind: 'rename' | 'delete'; preset: Preset } | null>(null);

  // The folders holding the current collection open when it changes (and may be closed again afterwards).
  const ancestors = ancestorsOf(tree, current).join('/');
  useEffect(() => {
    if (ancestors) setOpen((o) => ({ ...o, ...Object.fromEntries(ancestors.split('/').map((p) => [p, true])) }));
  }, [ancestors]);

  const isOpen = (n: NavNode): boolean => {
    const collapse = n.collection.meta?.collapse ?? 'open';
    if (collapse === 'locked') return true;
    return open[n.name] ?? collapse !== 'closed';
  };

  const render = (nodes: NavNode[]) => (
    <>
      {nodes.map((n) => {
        const label = titleOf(n.name);
        const icon = <CollectionIcon icon={n.collection.meta?.icon} color={n.collection.meta?.color} folder={n.folder} name={n.name} />;
        if (n.folder) {
          const locked = n.collection.meta?.collapse === 'locked';
          const expanded = isOpen(n);
          const listId = `nav-folder-${n.name}`;
          return (
            <li key={n.name} className="nav-folder-item">
              {locked ? (
                <span className="nav-item nav-folder">{icon}<span className="nav-label">{label}</span></span>
              ) : (
                <button type="button" className="nav-item nav-folder" aria-expanded={expanded} aria-controls={listId}
                  onClick={() => setOpen((o) => ({ ...o, [n.name]: !expanded }))}>
                  <span className="nav-chevron" aria-hidden="true">{expanded ? '▾' : '▸'}</span>
                  {icon}<span className="nav-label">{label}</span>
                </button>
              )}
              {expanded && <ul className="nav-list" id={listId}>{render(n.children)}</ul>}
            </li>
          );
        }
        const active = current === n.name;
        const marks = bookmarksOf(presets, n.name);
        return (
          <li key={n.name}>
            <Link href={`/${n.name}`} className="nav-item" aria-current={active && !currentBookmark ? 'page' : undefined}
              title={n.collection.meta?.note ?? undefined}>
              {icon}<span className="nav-label">{label}</span>
              {n.collection.meta?.singleton && <span className="visually-hidden"> (single item)</span>}
            </Link>
            {marks.length > 0 && (
              <ul className="nav-list nav-bookmarks" aria-label={`Bookmarks of ${label}`}>
                {marks.map((p) => (
                  <Bookmark key={p.id} preset={p} collection={n.name} active={active && currentBookmark === String(p.id)}
                    // One's own bookmarks are one's own to change (core/system/own-presets.ts).
                    mayChange={p.user !== null && (p.user === me?.id || admin || can(perms, admin, 'svc_presets', 'update'))}
                    mayDelete={p.user !== null && (p.user === me?.id || admin || can(perms, admin, 'svc_presets', 'delete'))}
                    onRename={() => setEditing({ kind: 'rename', preset: p })} onDelete={() => setEditing({ kind: 'delete', preset: p })} />
                ))}
              </ul>
            )}
            {n.children.length > 0 && <ul className="nav-list">{render(n.children)}</ul>}
          </li>
        );
      })}
    </>
  );

  return (
    <nav aria-label="Collections" className="nav-pane content-nav">
      <h2><Link href="" className="content-nav-home" aria-current={current === '' ? 'page' : undefined}>Content</Link></h2>
      {tree.length === 0 ? <p className="muted content-nav-empty">No collections yet.</p> : <ul className="nav-list">{render(tree)}</ul>}
      {editing?.kind === 'rename' && <RenameDialog preset={editing.preset} onClose={() => setEditing(null)} />}
      {editing?.kind === 'delete' && <DeleteBookmarkDialog preset={editing.preset} onClose={() => setEditing(null)} />}
    </nav>
  );
}

function Bookmark({ preset, collection, active, mayChange, mayDelete, onRename, onDelete }: {
  preset: Preset; collection: string; active: boolean; mayChange: boolean; mayDelete: boolean; onRename(): void; onDelete(): void;
}) {
  const { me } = useSession();
  const name = preset.bookmark ?? '';
  const own = preset.user === me?.id;
  return (
    <li className="nav-bookmark">
      <Link href={`/${collection}?bookmark=${preset.id}`} className="nav-item" aria-current={active ? 'page' : undefined}>
        <span className="coll-icon bookmark-icon" aria-hidden="true">❖</span>
        <span className="nav-label">{name}</span>
        {!own && <span className="visually-hidden"> (shared)</span>}
      </Link>
      {(mayChange || mayDelete) && own && (
        <span className="nav-bookmark-actions">
          {mayChange && <button type="button" className="btn btn-ghost icon-btn btn-small" aria-label={`Rename bookmark ${name}`} title="Rename" onClick={onRename}>✎</button>}
          {mayDelete && <button type="button" className="btn btn-ghost icon-btn btn-small" aria-label={`Delete bookmark ${name}`} title="Delete" onClick={onDelete}>✕</button>}
        </span>
      )}
    </li>
  );
}

function RenameDialog({ preset, onClose }: { preset: Preset; onClose(): void }) {
  const { rename } = useBookmarkActions();
  const [name, setName] = useState(preset.bookmark ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (): void => {
    if (!name.trim()) {
      setProblem('Give the bookmark a name.');
      return;
    }
    rename.mutate({ id: preset.id, name: name.trim() }, { onSuccess: onClose, onError: (err) => setProblem(messageOf(err)) });
  };
  return (
    <Dialog title="Rename bookmark" onClose={onClose} onSubmit={submit}
      footer={(
        <>
          <button type="button" className="btn" onClick={onClose}>Cancel</button>
          <button type="submit" className="btn btn-primary" disabled={rename.isPending}>{rename.isPending ? 'Saving…' : 'Rename'}</button>
        </>
      )}>
      <div className="field">
        <label htmlFor="rename-bookmark">Bookmark name</label>
        <input id="rename-bookmark" value={name} maxLength={255} onChange={(e) => setName(e.target.value)} data-autofocus
          aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'rename-error' : undefined} />
      </div>
      {problem && <p className="field-error" id="rename-error" role="alert">{problem}</p>}
    </Dialog>
  );
}

function DeleteBookmarkDialog({ preset, onClose }: { preset: Preset; onClose(): void }) {
  const { remove } = useBookmarkActions();
  const [location, navigate] = useLocation();
  const search = useSearch();
  const run = (): void => {
    remove.mutate({ id: preset.id }, {
      onSuccess: () => {
        onClose();
        if (new URLSearchParams(search).get('bookmark') === String(preset.id)) navigate(location, { replace: true });
      },
    });
  };
  return (
    <Dialog title={`Delete bookmark "${preset.bookmark}"?`} onClose={onClose}
      footer={(
        <>
          <button type="button" className="btn" onClick={onClose} data-autofocus>Cancel</button>
          <button type="button" className="btn btn-danger" disabled={remove.isPending} onClick={run}>{remove.isPending ? 'Deleting…' : 'Delete bookmark'}</button>
        </>
      )}>
      <p>The bookmark goes; the items it shows stay.</p>
      {remove.error ? <p className="field-error" role="alert">{messageOf(remove.error)}</p> : null}
    </Dialog>
  );
}
