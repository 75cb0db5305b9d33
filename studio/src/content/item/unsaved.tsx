/** The unsaved-changes guard: while the form has edits, closing or reloading the tab asks (beforeunload), and
 * following an in-app link asks in a dialog first (links are caught in the capture phase before the router sees
 * them). After a save, allowNext() lets the editor's own navigation through. */
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { ConfirmDialog } from './ConfirmDialog.tsx';

export function useUnsavedGuard(dirty: boolean) {
  const [, navigate] = useLocation();
  const [pending, setPending] = useState<string | null>(null);
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;
  const bypass = useRef(false);

  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!dirtyRef.current || bypass.current) return;
      e.preventDefault();
      e.returnValue = '';
    };
    const onClick = (e: MouseEvent) => {
      if (!dirtyRef.current || bypass.current || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || a.target === '_blank' || a.hasAttribute('download')) return;
      const url = new URL(a.href, location.href);
      if (url.origin !== location.origin || !url.pathname.startsWith('/admin')) return;
      if (url.pathname === location.pathname && url.search === location.search) return;
      e.preventDefault();
      e.stopPropagation();
      setPending(url.pathname + url.search);
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, []);

  const dialog = (
    <ConfirmDialog open={pending !== null} title="Leave without saving?" confirmLabel="Discard changes" cancelLabel="Keep editing" danger
      onCancel={() => setPending(null)}
      onConfirm={() => {
        const to = pending;
        setPending(null);
        bypass.current = true;
        // The target is the browser path of the link: "~" leaves this module's nesting and the Studio's base.
        if (to) navigate(`~${to}`);
      }}>
      <p>This item has changes that are not saved. They will be lost if you leave.</p>
    </ConfirmDialog>
  );

  return {
    dialog,
    /** The next navigation is the editor's own (after a save or delete): no question. */
    allowNext() { bypass.current = true; },
  };
}
