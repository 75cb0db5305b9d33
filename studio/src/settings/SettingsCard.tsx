/** One group of settings on its own form: its fields, and Save / Discard for just these fields, with the outcome said
 * where it happened ("Saved.", or the server's refusal in plain words; field errors sit on their fields). */
import { useId, type ReactNode } from 'react';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';

export function SettingsCard({ title, description, children, dirty, busy, saved, error, onSave, onDiscard, wide }: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  dirty: boolean;
  busy: boolean;
  saved: boolean;
  error: unknown;
  onSave(): void;
  onDiscard(): void;
  wide?: boolean;
}) {
  const titleId = useId();
  return (
    <form className={`settings-card${wide ? ' wide' : ''}`} aria-labelledby={titleId} noValidate
      onSubmit={(e) => { e.preventDefault(); onSave(); }}>
      <div className="settings-card-head">
        <h2 id={titleId}>{title}</h2>
        {description && <p className="field-note">{description}</p>}
      </div>
      <div className="settings-card-body">{children}</div>
      {error !== null && error !== undefined && <ErrorNotice error={error} title="Not saved:" />}
      <div className="settings-card-foot">
        <span className="settings-card-state" role="status">
          {dirty ? <span className="badge item-dirty">Unsaved changes</span> : saved ? <span className="notice-inline">Saved.</span> : null}
        </span>
        {dirty && <button type="button" className="btn" onClick={onDiscard} disabled={busy}>Discard</button>}
        <button type="submit" className="btn btn-primary" disabled={!dirty || busy}>{busy ? 'Saving…' : `Save ${title.toLowerCase()}`}</button>
      </div>
    </form>
  );
}

/** A form's state as a card shows it (useFieldsForm in data.ts). */
export function cardState(form: { dirty: boolean; busy: boolean; saved: boolean; error: unknown; discard(): void }) {
  return { dirty: form.dirty, busy: form.busy, saved: form.saved, error: form.error, onDiscard: form.discard };
}
