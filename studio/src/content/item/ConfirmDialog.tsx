/** A modal question (native <dialog>: focus kept inside, Escape cancels, focus returns to the opener). */
import { useRef, type ReactNode } from 'react';
import { useModal } from '../../ui/use-modal.ts';

export function ConfirmDialog({ open, title, children, confirmLabel, cancelLabel = 'Cancel', danger, busy, onConfirm, onCancel }: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useModal(open);
  const titleId = useRef(`dlg-${Math.random().toString(36).slice(2)}`).current;
  return (
    <dialog ref={ref} className="confirm-dialog" aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); onCancel(); }}>
      {open && (
        <>
          <div className="dialog-head"><h2 id={titleId}>{title}</h2></div>
          <div className="dialog-body">{children}</div>
          <div className="dialog-foot">
            <button type="button" className="btn" onClick={onCancel} autoFocus>{cancelLabel}</button>
            <button type="button" className={`btn ${danger ? 'btn-danger' : 'btn-primary'}`} onClick={onConfirm} disabled={busy}>{confirmLabel}</button>
          </div>
        </>
      )}
    </dialog>
  );
}
