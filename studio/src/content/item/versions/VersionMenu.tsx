/** The version switcher in the item's header: "Main" and the item's drafts with their status, as links (the address
 * says which version is open, ?version=<id>), and "New draft…" when the caller may create one. On the new-item page
 * it lists the drafts of new items of the collection (they have no row, so no list shows them otherwise). A
 * disclosure: Escape or a click outside closes it, and focus returns to its button. */
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'wouter';
import { useQuery } from '@tanstack/react-query';
import { messageOf } from '../../../api/errors.ts';
import { newContentDraftsQuery, STATUS_LABEL, versionsOfItemQuery, versionTitle, type Version } from './api.ts';

export function itemHref(collection: string, item: string, versionId?: string | null): string {
  return `/${collection}/${encodeURIComponent(item)}${versionId ? `?version=${encodeURIComponent(versionId)}` : ''}`;
}

export function StatusBadge({ status }: { status: Version['status'] }) {
  return <span className={`badge version-status version-status-${status}`}>{STATUS_LABEL[status]}</span>;
}

export function VersionMenu({ collection, item, current, mayList, onNewDraft }: {
  collection: string;
  /** The item's key; null on the new-item page. */
  item: string | null;
  current: Version | null;
  /** versioning:view: the drafts can be listed. */
  mayList: boolean;
  /** Offered when the caller may create a draft here. */
  onNewDraft?: () => void;
}) {
  const [open, setOpen] = useState(false);
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const popId = useId();
  const list = useQuery({
    ...(item === null ? newContentDraftsQuery(collection) : versionsOfItemQuery(collection, item)),
    enabled: mayList,
  });

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => { if (!wrap.current?.contains(e.target as Node)) setOpen(false); };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey, true);
    wrap.current?.querySelector<HTMLElement>('.version-pop a, .version-pop button')?.focus();
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey, true);
    };
  }, [open]);

  const versions = list.data ?? [];
  const mainLabel = item === null ? 'New item' : 'Main';
  return (
    <div className="version-menu" ref={wrap}
      onBlur={(e) => { if (open && e.relatedTarget && !wrap.current?.contains(e.relatedTarget as Node)) setOpen(false); }}>
      <button ref={button} type="button" className="btn btn-small version-switch" aria-expanded={open} aria-controls={popId} onClick={() => setOpen((o) => !o)}>
        <span className="version-switch-label">Version</span>
        <span className="version-switch-name">{current ? versionTitle(current) : mainLabel}</span>
        {current && <StatusBadge status={current.status} />}
        <span aria-hidden="true" className="version-caret">▾</span>
      </button>
      {open && (
        <div className="version-pop" id={popId}>
          <ul className="version-list" aria-label={item === null ? 'Drafts of new items' : 'Versions of this item'}>
            {item !== null && (
              <li>
                <Link href={itemHref(collection, item)} className="version-link" aria-current={current === null ? 'page' : undefined} onClick={() => setOpen(false)}>
                  <span className="version-link-name">Main</span><span className="muted">the item itself</span>
                </Link>
              </li>
            )}
            {versions.map((v) => (
              <li key={v.id}>
                <Link href={itemHref(collection, v.item, v.id)} className="version-link" aria-current={current?.id === v.id ? 'page' : undefined} onClick={() => setOpen(false)}>
                  <span className="version-link-name">{versionTitle(v)}</span>
                  <StatusBadge status={v.status} />
                </Link>
              </li>
            ))}
          </ul>
          {mayList && list.isPending && <p className="muted version-pop-note" role="status">Loading drafts…</p>}
          {list.error && <p className="version-pop-note field-error" role="alert">Drafts could not be listed: {messageOf(list.error)}</p>}
          {mayList && list.data?.length === 0 && <p className="muted version-pop-note">{item === null ? 'No drafts of new items yet.' : 'No drafts yet.'}</p>}
          {onNewDraft && (
            <div className="version-pop-foot">
              <button type="button" className="btn btn-small" aria-haspopup="dialog" onClick={() => { setOpen(false); onNewDraft(); }}>
                {item === null ? 'Save as a new draft…' : 'New draft…'}
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}
