/** The strip above the form while a draft is open: its name, status and author, why it is read only (in review,
 * approved, someone else's), and what the caller may do with it: compare it with the item, submit it for review,
 * promote it, delete it, each after a confirmation that shows the API's refusal in plain words. Unsaved changes
 * are saved first. */
import { useState } from 'react';
import { createPortal } from 'react-dom';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';
import { ApiError } from '../../../api/errors.ts';
import { ConfirmDialog } from '../../../ui/ConfirmDialog.tsx';
import { Dialog } from '../../../ui/Dialog.tsx';
import { relativeTime } from '../sidebar/format.ts';
import { versionErrorText, versionTitle, type Version, type VersionRights } from './api.ts';
import { CompareView } from './CompareView.tsx';
import { StatusBadge } from './VersionMenu.tsx';

type Action = 'compare' | 'submit' | 'promote' | 'delete';

export function VersionBar({ version, rights, collection, me, dirty, newContent, setsPublished, saveFirst, onSubmitted, onPromoted, onDeleted }: {
  version: Version;
  rights: VersionRights;
  collection: string;
  me: string | undefined;
  dirty: boolean;
  newContent: boolean;
  /** The collection has a status field the draft does not set: promote publishes. */
  setsPublished: boolean;
  /** Saves the form's changes into the draft; false when the save failed (the form shows why). */
  saveFirst(): Promise<boolean>;
  onSubmitted(): void;
  onPromoted(): void;
  onDeleted(): void;
}) {
  const [open, setOpen] = useState<Action | null>(null);
  const queryClient = useQueryClient();
  const title = versionTitle(version);
  const by = version.user_created === me ? 'you' : 'another user';
  const when = relativeTime(version.date_updated ?? version.date_created);

  /** Runs a version action; a refusal is thrown in words (the dialog shows it) and the version is read again. */
  async function act(path: string, method = 'POST'): Promise<boolean> {
    if (dirty && method === 'POST' && !(await saveFirst())) {
      setOpen(null);
      return false;
    }
    try {
      await request(method, path);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) void queryClient.invalidateQueries({ queryKey: ['versions', collection] });
      throw new Error(versionErrorText(err));
    }
  }
  const base = `/versions/${encodeURIComponent(version.id)}`;

  return (
    <section className="version-bar" aria-label="Draft">
      <div className="version-bar-row">
        <div className="version-bar-info">
          <div className="version-bar-title">
            <StatusBadge status={version.status} />
            <strong className="version-bar-name">{title}</strong>
            <span className="muted mono version-bar-key">{version.key}</span>
          </div>
          <span className="muted version-bar-meta">{newContent ? 'A new item · ' : ''}Created by {by}{when ? `, saved ${when}` : ''}</span>
        </div>
        <div className="version-bar-actions">
          <button type="button" className="btn btn-small" aria-haspopup="dialog" aria-label="Compare with main" onClick={() => setOpen('compare')}>Compare</button>
          {rights.submit && <button type="button" className="btn btn-small" aria-haspopup="dialog" onClick={() => setOpen('submit')}>Submit for review</button>}
          {rights.promote && <button type="button" className="btn btn-small" aria-haspopup="dialog" onClick={() => setOpen('promote')}>Promote</button>}
          {rights.delete && <button type="button" className="btn btn-small btn-danger" aria-haspopup="dialog" onClick={() => setOpen('delete')}>Delete draft</button>}
        </div>
      </div>
      {rights.readOnlyReason && <p className="version-bar-note">{rights.readOnlyReason}</p>}
      {version.status === 'rejected' && rights.edit && <p className="version-bar-note">A reviewer rejected this draft. Change it and submit it again.</p>}

      {/* The dialogs are forms of their own: outside the item's form (a form in a form would submit the page). */}
      {open !== null && createPortal(<>
      {open === 'compare' && (
        <Dialog title={`Compare “${title}” with main`} wide onClose={() => setOpen(null)}
          footer={<button type="button" className="btn" onClick={() => setOpen(null)} data-autofocus>Close</button>}>
          {dirty && <p className="notice notice-warning">The form has unsaved changes; this compares the draft as last saved.</p>}
          <CompareView versionId={version.id} collection={collection} draftLabel={title} />
        </Dialog>
      )}
      {open === 'submit' && (
        <ConfirmDialog title="Submit this draft for review?" confirmLabel={dirty ? 'Save and submit' : 'Submit for review'} danger={false}
          onClose={() => setOpen(null)}
          onConfirm={async () => {
            if (!(await act(`${base}/submit`))) return;
            await queryClient.invalidateQueries({ queryKey: ['versions', collection] });
            setOpen(null);
            onSubmitted();
          }}>
          <p>“{title}” goes to review{dirty ? ' with the changes you have not saved yet' : ''}. While it is in review, nobody can change it; a reviewer approves or rejects it.</p>
        </ConfirmDialog>
      )}
      {open === 'promote' && (
        <ConfirmDialog title="Promote this draft?" confirmLabel={dirty ? 'Save and promote' : 'Promote'} danger={false}
          onClose={() => setOpen(null)}
          onConfirm={async () => { if (await act(`${base}/promote`)) { setOpen(null); onPromoted(); } }}>
          <p>
            {newContent ? `The new item is created from “${title}”` : `The changes of “${title}” are written to the item`}
            {version.status === 'pending' ? ', skipping the review under way' : ''}, for everyone to see.
            {setsPublished ? ' Its status becomes Published, as the draft does not set one.' : ''} The draft is then marked approved.
          </p>
        </ConfirmDialog>
      )}
      {open === 'delete' && (
        <ConfirmDialog title="Delete this draft?" confirmLabel="Delete draft"
          onClose={() => setOpen(null)}
          onConfirm={async () => { if (await act(base, 'DELETE')) { setOpen(null); onDeleted(); } }}>
          <p>“{title}” and its changes are deleted{newContent ? '; the new item it would create is not created' : '; the item stays as it is'}. This cannot be undone.</p>
        </ConfirmDialog>
      )}
      </>, document.body)}
    </section>
  );
}
