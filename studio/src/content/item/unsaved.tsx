/** The unsaved-changes guard. While the form has edits:
 * - closing or reloading the tab asks (beforeunload);
 * - following an in-app link asks in a dialog first (links are caught in the capture phase, before the router);
 * - the browser's Back asks too: the first edit adds a history entry with the same address, so Back only leaves
 *   that entry (the router sees no change of address) and the dialog asks; "Discard" then goes back for real.
 *   When the edits are saved, the extra entry is taken back out.
 * After a save or a delete, allowNext() lets the editor's own navigation through. */
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { ConfirmDialog } from './ConfirmDialog.tsx';

const GUARD = '__studioUnsaved';

function onGuardEntry(): boolean {
  return Boolean(history.state && typeof history.state === 'object' && (history.state as Record<string, unknown>)[GUARD]);
}

function pushGuardEntry(): void {
  const state = history.state && typeof history.state === 'object' ? history.state as Record<string, unknown> : {};
  history.pushState({ ...state, [GUARD]: true }, '', location.href);
}

/** 'back': the browser's Back; a path: an in-app link. */
type Pending = { kind: 'back' } | { kind: 'link'; to: string };

/** `message` says what would be lost (the workflow designer speaks of its steps). */
export function useUnsavedGuard(dirty: boolean, message = 'This item has changes that are not saved. They will be lost if you leave.') {
  const [, navigate] = useLocation();
  const [pending, setPending] = useState<Pending | null>(null);
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;
  const bypass = useRef(false);
  /** A history.back() of our own (taking the guard entry out): its popstate is not a person leaving. */
  const silentBack = useRef(false);

  useEffect(() => {
    if (bypass.current) return;
    if (dirty && !onGuardEntry()) pushGuardEntry();
    else if (!dirty && onGuardEntry()) {
      silentBack.current = true;
      history.back();
    }
  }, [dirty]);

  useEffect(() => {
    const here = location.pathname + location.search;
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
      setPending({ kind: 'link', to: url.pathname + url.search });
    };
    const onPopState = () => {
      if (silentBack.current) {
        silentBack.current = false;
        return;
      }
      if (!dirtyRef.current || bypass.current) return;
      // Back from the guard entry lands on the same address: ask, and put the guard entry back meanwhile.
      if (location.pathname + location.search === here && !onGuardEntry()) {
        pushGuardEntry();
        setPending({ kind: 'back' });
      }
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    window.addEventListener('popstate', onPopState);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      window.removeEventListener('popstate', onPopState);
      document.removeEventListener('click', onClick, true);
    };
  }, []);

  const dialog = (
    <ConfirmDialog open={pending !== null} title="Leave without saving?" confirmLabel="Discard changes" cancelLabel="Keep editing" danger
      onCancel={() => setPending(null)}
      onConfirm={() => {
        const what = pending;
        setPending(null);
        bypass.current = true;
        if (what?.kind === 'back') history.go(-2); // past the guard entry put back, to where Back was going
        // A link's target is its browser path: "~" leaves this module's nesting and the Studio's base.
        else if (what?.kind === 'link') navigate(`~${what.to}`);
      }}>
      <p>{message}</p>
    </ConfirmDialog>
  );

  return {
    dialog,
    /** The next navigation is the editor's own (after a save or delete): no question. */
    allowNext() { bypass.current = true; },
  };
}
