/** A modal <dialog> opened and closed by the `open` prop (Escape and the close button call onClose), and the
 * confirmation built on it. */
import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
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

/** "Are you sure?" with the consequence spelled out; the action's error shows in the dialog, which stays open. */
export function ConfirmDialog({ open, onClose, title, children, confirmLabel, danger = true, onConfirm }: {
  open: boolean; onClose(): void; title: string; children: ReactNode; confirmLabel: string; danger?: boolean; onConfirm(): Promise<unknown>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => { if (open) setError(null); }, [open]);
  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal open={open} onClose={onClose} title={title} className="confirm-dialog"
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="button" className={danger ? 'btn btn-danger' : 'btn btn-primary'} disabled={busy} onClick={() => void confirm()}>{busy ? 'Working…' : confirmLabel}</button>
      </>}>
      {children}
      {error !== null && <ErrorNotice error={error} onRetry={() => void confirm()} />}
    </Modal>
  );
}
