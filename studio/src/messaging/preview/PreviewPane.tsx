/** The live preview beside an editor: the rendered subject, what a send would refuse about the sample variables, a
 * rendering error in words, and the rendered message in its sandboxed frame. */
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { channelLabel, type Channel } from '../api.ts';
import { PreviewFrame } from './PreviewFrame.tsx';
import type { LivePreview } from './use-live-preview.ts';

export function PreviewPane({ live, channel, empty, layoutNote, showSubject = true }: {
  live: LivePreview;
  channel: Channel;
  /** Said while there is nothing to render. */
  empty: string;
  layoutNote?: string;
  showSubject?: boolean;
}) {
  const { preview, shown } = live;
  const updating = live.stale || preview.isFetching;
  const syntaxErrors = Object.values(live.errors ?? {}).some((list) => list.length > 0);
  // What is shown is behind the text: it has errors, or the server could not render it.
  const behind = shown !== null && (syntaxErrors || preview.isError);
  return (
    <section className="preview-pane" aria-labelledby="preview-title">
      <div className="preview-head">
        <h2 id="preview-title">Preview</h2>
        <span className="muted">{channelLabel(channel)}{layoutNote ? ` · ${layoutNote}` : ''}</span>
        <span className={updating ? 'preview-state busy' : 'preview-state'} aria-hidden="true">{updating ? 'Updating…' : behind ? 'Not up to date' : 'Up to date'}</span>
      </div>
      {live.body === null ? <p className="muted preview-empty">{empty}</p> : (
        <>
          {syntaxErrors && (
            <div className="notice notice-warning" role="status">
              <span>{shown ? 'Showing the last version that rendered. ' : ''}The preview follows once the errors in the text are fixed.</span>
            </div>
          )}
          {!syntaxErrors && preview.error && <ErrorNotice error={preview.error} title="The preview could not be rendered." />}
          {shown?.preview.variables_error && !behind && (
            <div className="notice notice-warning" role="status"><span>With these variables a send would be refused: {shown.preview.variables_error}</span></div>
          )}
          <div className={behind ? 'preview-output behind' : 'preview-output'}>
            {showSubject && (
              <div className="preview-subject">
                <span className="muted">Subject</span>
                <output aria-label="Rendered subject" className={shown?.preview.subject ? undefined : 'muted'}>{shown ? shown.preview.subject || '(none)' : ''}</output>
              </div>
            )}
            <PreviewFrame body={shown?.body ?? null} title="Rendered message" />
          </div>
        </>
      )}
    </section>
  );
}
