/** The library's uploads: files dropped or picked go in a queue (two at a time), each with its progress, a cancel,
 * and a retry when it failed. The queue outlives moving between the library and a file's page. Unfinished
 * resumable uploads from before a reload are listed (pendingUploads) and continue when their file is picked again. */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { FileRecord } from './types.ts';
import { discardPendingUpload, isAbort, matchesPending, pendingUploads, resumeUpload, uploadFile, type PendingUpload } from './upload.ts';

export type UploadStatus = 'queued' | 'uploading' | 'done' | 'failed';

export interface UploadItem {
  key: number;
  file: File;
  folder: string | null;
  fraction: number;
  status: UploadStatus;
  error: unknown;
  record: FileRecord | null;
  /** Continues this unfinished upload instead of starting a new one. */
  resume: PendingUpload | null;
}

interface QueueValue {
  items: UploadItem[];
  add(files: Iterable<File>, folder: string | null): void;
  cancel(key: number): void;
  retry(key: number): void;
  dismiss(key: number): void;
  pending: PendingUpload[];
  pendingError: unknown;
  reloadPending(): void;
  resume(pending: PendingUpload, file: File): void;
  discard(pending: PendingUpload): Promise<void>;
}

const QueueContext = createContext<QueueValue | null>(null);
const CONCURRENCY = 2;
/** A finished row stays this long, then leaves the list (the file is in the library). */
const DONE_LINGER_MS = 6000;

let nextKey = 1;

export function UploadQueueProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [items, setItems] = useState<UploadItem[]>([]);
  const controllers = useRef(new Map<number, AbortController>());
  const [pending, setPending] = useState<PendingUpload[]>([]);
  const [pendingError, setPendingError] = useState<unknown>(null);

  const patch = useCallback((key: number, change: Partial<UploadItem>) => {
    setItems((list) => list.map((it) => (it.key === key ? { ...it, ...change } : it)));
  }, []);

  const reloadPending = useCallback(() => {
    setPendingError(null);
    pendingUploads().then(setPending, setPendingError);
  }, []);

  // Unfinished uploads are looked up once, when the library opens: after that, uploads of this page are in the queue.
  useEffect(() => { reloadPending(); }, [reloadPending]);
  // Leaving the library does not cancel uploads: they finish in the background and the library shows the files.

  const start = useCallback((item: UploadItem) => {
    if (controllers.current.has(item.key)) return;
    const ctrl = new AbortController();
    controllers.current.set(item.key, ctrl);
    patch(item.key, { status: 'uploading', fraction: 0, error: null });
    const onProgress = (fraction: number) => patch(item.key, { fraction });
    const run = item.resume
      ? resumeUpload(item.file, item.resume, { signal: ctrl.signal, onProgress })
      : uploadFile(item.file, { folder: item.folder, signal: ctrl.signal, onProgress });
    run.then((record) => {
      patch(item.key, { status: 'done', fraction: 1, record });
      void queryClient.invalidateQueries({ queryKey: ['files'] });
      setTimeout(() => setItems((list) => list.filter((it) => it.key !== item.key || it.status !== 'done')), DONE_LINGER_MS);
    }, (err: unknown) => {
      if (isAbort(err)) setItems((list) => list.filter((it) => it.key !== item.key));
      else patch(item.key, { status: 'failed', error: err });
    }).finally(() => controllers.current.delete(item.key));
  }, [patch, queryClient]);

  // The scheduler: whenever the queue changes, start queued uploads while fewer than CONCURRENCY run.
  useEffect(() => {
    const running = items.filter((it) => it.status === 'uploading').length;
    const queued = items.filter((it) => it.status === 'queued').slice(0, Math.max(0, CONCURRENCY - running));
    for (const it of queued) start(it);
  }, [items, start]);

  const add = useCallback((files: Iterable<File>, folder: string | null) => {
    const list = [...files];
    if (!list.length) return;
    // A file that matches an unfinished upload continues it (tus-js-client finds it by its fingerprint).
    setPending((p) => p.filter((pu) => !list.some((f) => matchesPending(f, pu))));
    setItems((current) => [...current, ...list.map((file): UploadItem => ({
      key: nextKey++, file, folder, fraction: 0, status: 'queued', error: null, record: null, resume: null,
    }))]);
  }, []);

  const resume = useCallback((p: PendingUpload, file: File) => {
    setPending((list) => list.filter((x) => x.key !== p.key));
    setItems((current) => [...current, { key: nextKey++, file, folder: p.folder, fraction: p.offset && p.size ? p.offset / p.size : 0, status: 'queued', error: null, record: null, resume: p }]);
  }, []);

  const discard = useCallback(async (p: PendingUpload) => {
    await discardPendingUpload(p);
    setPending((list) => list.filter((x) => x.key !== p.key));
  }, []);

  const value = useMemo<QueueValue>(() => ({
    items,
    add,
    cancel: (key) => {
      const ctrl = controllers.current.get(key);
      if (ctrl) ctrl.abort();
      else setItems((list) => list.filter((it) => it.key !== key));
    },
    retry: (key) => patch(key, { status: 'queued', error: null, fraction: 0 }),
    dismiss: (key) => setItems((list) => list.filter((it) => it.key !== key)),
    pending,
    pendingError,
    reloadPending,
    resume,
    discard,
  }), [items, add, patch, pending, pendingError, reloadPending, resume, discard]);

  return <QueueContext.Provider value={value}>{children}</QueueContext.Provider>;
}

export function useUploadQueue(): QueueValue {
  const value = useContext(QueueContext);
  if (!value) throw new Error('useUploadQueue outside UploadQueueProvider');
  return value;
}
