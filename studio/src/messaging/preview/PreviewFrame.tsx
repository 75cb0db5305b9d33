/** A rendered message in a sandboxed frame, as a mail client shows it. The Studio's own CSP forbids the inline styles
 * and remote images of real email in any document the Studio writes itself (a srcdoc frame inherits that policy), so
 * the frame is a document of the API's, with its own policy (no scripts; functions/http/framed-document.ts):
 * - a preview being edited: a form posted into a new frame (POST /notify/preview/frame, `payload` = the preview's
 *   JSON), which replaces the shown one once it has loaded, so nothing flickers and no history entry is added (the
 *   first navigation of a new frame replaces its blank page);
 * - a stored message: the frame's address (GET /notify/logs/{id}/content). */
import { useEffect, useId, useRef, useState } from 'react';
import type { PreviewRequest } from '../api.ts';

export function PreviewFrame({ body, title }: { body: PreviewRequest | null; title: string }) {
  const base = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const form = useRef<HTMLFormElement>(null);
  const payload = useRef<HTMLInputElement>(null);
  const counter = useRef(0);
  const submitted = useRef(new Set<number>());
  // The frame shown (the newest loaded) and the one loading, if any.
  const [frames, setFrames] = useState<{ n: number; loaded: boolean }[]>([]);
  const [pending, setPending] = useState<{ n: number; json: string } | null>(null);
  const json = body ? JSON.stringify(body) : null;

  useEffect(() => {
    if (json === null) return;
    const n = ++counter.current;
    setFrames((prev) => [...prev.filter((f) => f.loaded).slice(-1), { n, loaded: false }]);
    setPending({ n, json });
  }, [json]);

  // Once the new frame is in the document, the form is posted into it.
  useEffect(() => {
    if (!pending || !form.current || !payload.current) return;
    form.current.target = `${base}-${pending.n}`;
    payload.current.value = pending.json;
    submitted.current.add(pending.n);
    form.current.submit();
    setPending(null);
  }, [pending, base]);

  const loaded = (n: number): void => {
    // A new frame's blank page loads before the post: only the answer counts.
    if (!submitted.current.has(n)) return;
    setFrames((prev) => prev.filter((f) => f.n >= n).map((f) => (f.n === n ? { ...f, loaded: true } : f)));
  };

  const shown = [...frames].reverse().find((f) => f.loaded)?.n;
  return (
    <div className="preview-frame-wrap">
      <form ref={form} method="post" action="/notify/preview/frame" encType="multipart/form-data" hidden aria-hidden="true">
        <input ref={payload} type="hidden" name="payload" />
      </form>
      {frames.map((f) => (
        <iframe key={f.n} name={`${base}-${f.n}`} sandbox="" onLoad={() => loaded(f.n)}
          title={f.n === shown ? title : `${title} (updating)`} className={f.n === shown ? 'preview-frame' : 'preview-frame preview-frame-next'}
          aria-hidden={f.n === shown ? undefined : true} tabIndex={f.n === shown ? undefined : -1} />
      ))}
    </div>
  );
}

/** A stored message's rendered content (a log's), from its own address. */
export function StoredFrame({ src, title }: { src: string; title: string }) {
  return (
    <div className="preview-frame-wrap">
      <iframe src={src} sandbox="" title={title} className="preview-frame" />
    </div>
  );
}
