/** "Are you sure?" for the admin screens: the consequence spelled out, and for what cannot be undone (dropping a
 * collection, a field, a user) the name typed to confirm, as Directus and GitHub ask. The action's error shows in
 * the dialog, which stays open; focus starts on Cancel (or the name box) and returns to the opener. */
import { useId, useState, type ReactNode } from 'react';
import { ErrorNotice } from './ErrorNotice.tsx';
import { Dialog } from './Dialog.tsx';

export function ConfirmDialog({ title, children, confirmLabel, cancelLabel = 'Cancel', danger = true, typeToConfirm, onConfirm, onClose }: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The button that closes without acting (say "Keep it" when the action itself is a cancellation). */
  cancelLabel?: string;
  danger?: boolean;
  /** When set, the confirm button waits until exactly this text is typed. */
  typeToConfirm?: string;
  onConfirm(): Promise<unknown>;
  onClose(): void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const ready = typeToConfirm === undefined || typed === typeToConfirm;
  async function confirm(): Promise<void> {
    if (!ready || busy) return;
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
    <Dialog title={title} onClose={onClose} onSubmit={() => void confirm()}
      footer={<>
        <button type="button" className="btn" onClick={onClose} data-autofocus={typeToConfirm === undefined ? true : undefined}>{cancelLabel}</button>
        <button type="submit" className={danger ? 'btn btn-danger' : 'btn btn-primary'} disabled={!ready || busy}>{busy ? 'Working…' : confirmLabel}</button>
      </>}>
      {children}
      {typeToConfirm !== undefined && (
        <div className="field">
          <label htmlFor={inputId}>Type <strong className="mono">{typeToConfirm}</strong> to confirm</label>
          <input id={inputId} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} data-autofocus />
        </div>
      )}
      {error !== null && <ErrorNotice error={error} />}
    </Dialog>
  );
}
