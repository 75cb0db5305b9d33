/** A modal dialog on the native <dialog> element: focus moves in and is kept there, Escape closes, focus returns to
 * what opened it. Named by its heading. */
import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react';

export function Dialog(props: {
  title: string;
  onClose(): void;
  children: ReactNode;
  footer: ReactNode;
  /** When given, the body is a form and Enter submits it. */
  onSubmit?: () => void;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    // Focus starts where the dialog's work is: the element marked data-autofocus, else its first field (showModal
    // alone would pick the Close button, the first focusable element).
    const first = dialog.querySelector<HTMLElement>('[data-autofocus]')
      ?? dialog.querySelector<HTMLElement>('.dialog-body input:not([disabled]), .dialog-body select:not([disabled]), .dialog-body textarea:not([disabled])');
    first?.focus();
    const cancel = (e: Event): void => {
      e.preventDefault();
      onClose.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
      if (opener && opener.isConnected) opener.focus();
    };
  }, []);

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    props.onSubmit?.();
  };
  const inner = (
    <>
      <div className="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" className="btn btn-ghost icon-btn" aria-label="Close" onClick={props.onClose}>✕</button>
      </div>
      <div className="dialog-body">{props.children}</div>
      <div className="dialog-foot">{props.footer}</div>
    </>
  );
  return (
    <dialog ref={ref} aria-labelledby={titleId} className={props.wide ? 'dialog-wide' : 'dialog-narrow'}>
      {props.onSubmit ? <form onSubmit={submit} noValidate>{inner}</form> : inner}
    </dialog>
  );
}
