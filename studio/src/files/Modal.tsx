/** A modal <dialog> opened and closed by the `open` prop (Escape and the close button call onClose). The confirmation
 * is ui/ConfirmDialog.tsx. */
import { useId, type FormEvent, type ReactNode } from 'react';
import { useModal } from '../ui/use-modal.ts';

export function Modal({ open, onClose, title, children, footer, onSubmit, className }: {
  open: boolean; onClose(): void; title: string; children: ReactNode; footer: ReactNode; onSubmit?: (e: FormEvent<HTMLFormElement>) => void; className?: string;
}) {
  const ref = useModal(open);
  const titleId = useId();
  const inner = (
    <>
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="btn btn-ghost icon-btn" aria-label="Close" onClick={onClose}>✕</button>
      </div>
      <div className="dialog-body">{children}</div>
      <div className="dialog-foot">{footer}</div>
    </>
  );
  return (
    <dialog ref={ref} aria-labelledby={titleId} className={className} onCancel={(e) => { e.preventDefault(); onClose(); }}>
      {open && (onSubmit ? <form noValidate onSubmit={(e) => { e.preventDefault(); onSubmit(e); }}>{inner}</form> : inner)}
    </dialog>
  );
}
