/** The library's navigation pane: "All files" and the folder tree (svc_folders nested by `parent`), with a new
 * folder (inside the selected one), rename in place and delete (its files and subfolders move up to its parent). */
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { useQueryClient } from '@tanstack/react-query';
import { request, requestList } from '../api/client.ts';
import { ApiError, messageOf } from '../api/errors.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { folderPath, folderTree, useFolders, type FolderNode } from './folders.ts';
import type { FolderRecord } from './types.ts';
import type { FileAccess } from './access.ts';

export function FolderTree({ selected, access }: { selected: string | null; access: FileAccess }) {
  const folders = useFolders();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const tree = useMemo(() => folderTree(folders.data ?? []), [folders.data]);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<FolderRecord | null>(null);

  // The selected folder's ancestors open so it is in view.
  useEffect(() => {
    const chain = folderPath(folders.data, selected);
    if (chain.length > 1) setExpanded((e) => new Set([...e, ...chain.slice(0, -1).map((f) => f.id)]));
  }, [folders.data, selected]);

  const selectedFolder = folders.data?.find((f) => f.id === selected) ?? null;
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['folders'] });

  async function remove(folder: FolderRecord) {
    // Directus moves a deleted folder's content to its parent; at the top level `on delete set null` does it.
    if (folder.parent) {
      const files = await requestList<{ id: string }>('/files', { fields: ['id'], filter: { folder: { _eq: folder.id } }, limit: -1 });
      if (files.data.length) await request('PATCH', '/files', { body: { keys: files.data.map((f) => f.id), data: { folder: folder.parent } } });
      const children = (folders.data ?? []).filter((f) => f.parent === folder.id);
      for (const child of children) await request('PATCH', `/folders/${child.id}`, { body: { parent: folder.parent } });
    }
    await request('DELETE', `/folders/${folder.id}`);
    setDeleting(null);
    await refresh();
    void queryClient.invalidateQueries({ queryKey: ['files'] });
    if (selected === folder.id || folderPath(folders.data, selected).some((f) => f.id === folder.id)) {
      navigate(folder.parent ? `/folders/${folder.parent}` : '/');
    }
  }

  const toggle = (id: string) => setExpanded((e) => {
    const next = new Set(e);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  });

  function renderNode(node: FolderNode) {
    const open = expanded.has(node.id);
    const current = node.id === selected;
    return (
      <li key={node.id}>
        {renaming === node.id ? (
          <FolderNameForm label={`New name for ${node.name}`} initial={node.name} submitLabel="Rename"
            onCancel={() => setRenaming(null)}
            onSubmit={async (name) => {
              await request('PATCH', `/folders/${node.id}`, { body: { name } });
              setRenaming(null);
              await refresh();
            }} />
        ) : (
          <div className="folder-row">
            {node.children.length ? (
              <button type="button" className="folder-toggle" aria-expanded={open} aria-label={`${open ? 'Collapse' : 'Expand'} ${node.name}`} onClick={() => toggle(node.id)}>
                {open ? '▾' : '▸'}
              </button>
            ) : <span className="folder-toggle placeholder" aria-hidden="true" />}
            <Link href={`/folders/${node.id}`} className="nav-item" aria-current={current ? 'page' : undefined}>
              <span aria-hidden="true">{current ? '▰' : '▱'}</span>
              <span className="label">{node.name}</span>
            </Link>
            <span className="folder-actions">
              {access.updateFolder && <button type="button" className="btn btn-ghost btn-small icon-btn" aria-label={`Rename folder ${node.name}`} title="Rename" onClick={() => setRenaming(node.id)}>✎</button>}
              {access.deleteFolder && <button type="button" className="btn btn-ghost btn-small icon-btn" aria-label={`Delete folder ${node.name}`} title="Delete" onClick={() => setDeleting(node)}>✕</button>}
            </span>
          </div>
        )}
        {open && node.children.length > 0 && <ul>{node.children.map(renderNode)}</ul>}
      </li>
    );
  }

  return (
    <nav className="nav-pane" aria-label="Folders">
      <div className="nav-pane-head">
        <h2>Folders</h2>
        {access.createFolder && (
          <button type="button" className="btn btn-ghost btn-small" onClick={() => setCreating(true)} aria-expanded={creating}>
            + New folder
          </button>
        )}
      </div>
      {creating && (
        <FolderNameForm label={selectedFolder ? `Name of the new folder in ${selectedFolder.name}` : 'Name of the new folder'} initial="" submitLabel="Create"
          note={selectedFolder ? `Inside ${selectedFolder.name}` : 'At the top level'}
          onCancel={() => setCreating(false)}
          onSubmit={async (name) => {
            const created = await request<FolderRecord>('POST', '/folders', { body: { name, parent: selected }, query: { fields: ['id', 'name', 'parent'] } });
            setCreating(false);
            if (selected) setExpanded((e) => new Set([...e, selected]));
            await refresh();
            if (created?.id) navigate(`/folders/${created.id}`);
          }} />
      )}
      <ul className="folder-tree">
        <li>
          <div className="folder-row">
            <span className="folder-toggle placeholder" aria-hidden="true" />
            <Link href="/" className="nav-item" aria-current={selected === null ? 'page' : undefined}>
              <span aria-hidden="true">▤</span>
              <span className="label">All files</span>
            </Link>
          </div>
        </li>
        {folders.error ? <li><ErrorNotice error={folders.error} onRetry={() => void folders.refetch()} /></li>
          : !folders.data ? <li><Loading label="Loading folders" /></li>
          : tree.map(renderNode)}
      </ul>
      {folders.data && folders.data.length === 0 && <p className="muted field-note nav-empty">No folders yet.</p>}
      {deleting !== null && (
        <ConfirmDialog onClose={() => setDeleting(null)} title={`Delete folder “${deleting.name}”?`} confirmLabel="Delete folder" onConfirm={() => remove(deleting)}>
          <p>
            The folder is removed; its files and subfolders are kept and move to {deleting.parent ? `“${folders.data?.find((f) => f.id === deleting.parent)?.name ?? 'its parent'}”` : 'the top level'}.
          </p>
        </ConfirmDialog>
      )}
    </nav>
  );
}

function FolderNameForm({ label, initial, submitLabel, note, onSubmit, onCancel }: {
  label: string; initial: string; submitLabel: string; note?: string; onSubmit(name: string): Promise<void>; onCancel(): void;
}) {
  const [name, setName] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => { input.current?.focus(); input.current?.select(); }, []);
  async function submit(e: FormEvent) {
    e.preventDefault();
    const value = name.trim();
    if (!value) {
      setError('Give the folder a name.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit(value);
    } catch (err) {
      setError(err instanceof ApiError ? (err.fieldErrors().name ?? messageOf(err)) : messageOf(err));
    } finally {
      setBusy(false);
    }
  }
  const errId = `${label.replace(/\W+/g, '-')}-error`;
  return (
    <form className="folder-name-form" onSubmit={(e) => void submit(e)} noValidate
      onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); onCancel(); } }}>
      <div className="folder-form">
        <input ref={input} aria-label={label} value={name} maxLength={255} onChange={(e) => setName(e.target.value)}
          aria-invalid={error ? true : undefined} aria-describedby={error ? errId : undefined} />
        <button type="submit" className="btn btn-small btn-primary" disabled={busy}>{submitLabel}</button>
        <button type="button" className="btn btn-small btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
      {note && !error && <p className="field-note folder-form-note">{note}</p>}
      {error && <p className="field-error folder-form-note" id={errId} role="alert">{error}</p>}
    </form>
  );
}
