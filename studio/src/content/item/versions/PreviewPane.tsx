/** Live preview: the website's page of the item in a frame beside the form (the preview contract's address,
 * ./preview-url.ts), reloaded after each save. The frame is sandboxed (no navigating the Studio away, no downloads).
 * When the Studio's own CSP refuses the site (its origin is not in STUDIO_PREVIEW_ORIGINS) the pane says so; when
 * the site refuses to be framed, the browser shows its error page in the frame, and "Nothing showing?" explains. */
import { useEffect, useState } from 'react';
import type { PreviewAddress } from './preview-url.ts';

export function PreviewPane({ address, reloadKey, title, onClose }: {
  address: PreviewAddress;
  /** Changes after each save: the frame loads the page again. */
  reloadKey: number;
  title: string;
  onClose(): void;
}) {
  const [reloads, setReloads] = useState(0);
  const [blocked, setBlocked] = useState<string | null>(null);
  const origin = address.ok ? address.origin : null;

  useEffect(() => {
    setBlocked(null);
    if (!origin) return;
    const onViolation = (e: SecurityPolicyViolationEvent) => {
      if ((e.effectiveDirective === 'frame-src' || e.violatedDirective.startsWith('frame-src')) && e.blockedURI.startsWith(origin)) setBlocked(origin);
    };
    document.addEventListener('securitypolicyviolation', onViolation);
    return () => document.removeEventListener('securitypolicyviolation', onViolation);
  }, [origin]);

  return (
    <section className="preview-pane" aria-label="Website preview">
      <div className="preview-bar">
        <h2 className="preview-heading">Preview</h2>
        {address.ok && <span className="preview-address" title={address.url}>{address.url.replace(/^https?:\/\//, '')}</span>}
        <span className="preview-tools">
          {address.ok && (
            <>
              <button type="button" className="btn btn-small btn-ghost icon-btn" aria-label="Reload preview" title="Reload preview" onClick={() => setReloads((n) => n + 1)}>↻</button>
              <a className="btn btn-small btn-ghost" href={address.url} target="_blank" rel="noreferrer noopener">Open in new tab<span className="visually-hidden"> (the website’s preview)</span></a>
            </>
          )}
          <button type="button" className="btn btn-small btn-ghost icon-btn" aria-label="Close preview" title="Close preview" onClick={onClose}>✕</button>
        </span>
      </div>
      {!address.ok ? (
        <p className="notice preview-notice">{address.reason}</p>
      ) : blocked ? (
        <p className="notice notice-warning preview-notice" role="alert">
          This Studio may not show pages of {blocked}. An administrator adds that origin to STUDIO_PREVIEW_ORIGINS (the server’s configuration); until then, open the preview in a new tab.
        </p>
      ) : (
        <iframe key={`${reloadKey}-${reloads}`} className="preview-frame" src={address.url} title={`Website preview of ${title}`}
          sandbox="allow-scripts allow-same-origin allow-forms allow-popups" referrerPolicy="no-referrer" />
      )}
      {address.ok && !blocked && (
        <details className="preview-help">
          <summary>Nothing showing?</summary>
          <p>The website has to allow this Studio to show it: its pages in preview answer with <code>Content-Security-Policy: frame-ancestors {location.origin}</code> and <code>Cache-Control: no-store</code>, and read drafts with a server-side token (see the documentation on drafts and preview).</p>
        </details>
      )}
    </section>
  );
}
