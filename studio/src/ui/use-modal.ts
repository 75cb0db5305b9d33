/** A native <dialog> shown as a modal while `open` is true and closed when it turns false; `onOpen` runs each time it
 * opens (resetting a form, focusing a search box). Escape is the dialog's cancel event, which each dialog maps to its
 * own close. */
import { useEffect, useRef } from 'react';

export function useModal(open: boolean, onOpen?: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  const opened = useRef(onOpen);
  opened.current = onOpen;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      opened.current?.();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return ref;
}
