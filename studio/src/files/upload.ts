/** Uploading a file: a multipart POST /files through XMLHttpRequest (fetch reports no upload progress) for small
 * files, and the tus endpoint (POST /tus, PATCH /tus/{id}; container/tus.ts) above RESUMABLE_THRESHOLD. tus-js-client
 * keeps each unfinished upload's URL in localStorage (the URL only: no secret; the session cookie authorizes the
 * requests), so after a reload the same file picked again continues where it stopped; `pendingUploads()` lists
 * what is unfinished for the library to offer. The tus id is the file's id. */
import { defaultOptions, Upload, type DetailedError, type PreviousUpload } from 'tus-js-client';
import { refreshSession, request } from '../api/client.ts';
import { ApiError, errorFromResponse } from '../api/errors.ts';
import type { FileRecord } from './types.ts';

export type { FileRecord } from './types.ts';

/** Files at least this large go through tus (resumable); smaller ones in one multipart request. */
export const RESUMABLE_THRESHOLD = 8 * 1024 * 1024;
/** Bytes per PATCH: what a dropped connection or a reload can lose at most. */
const CHUNK_SIZE = 5 * 1024 * 1024;
const TUS_VERSION = '1.0.0';

export interface UploadOptions {
  folder?: string | null;
  title?: string;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export function uploadFile(file: File, opts: UploadOptions = {}): Promise<FileRecord> {
  if (opts.signal?.aborted) return Promise.reject(abortError());
  return file.size >= RESUMABLE_THRESHOLD ? uploadResumable(file, opts) : uploadMultipart(file, opts);
}

/** Replaces a file's content (PATCH /files/{id} multipart, or tus with metadata `id` from RESUMABLE_THRESHOLD);
 * the id, metadata and references stay. */
export function replaceFile(id: string, file: File, opts: Omit<UploadOptions, 'folder' | 'title'> = {}): Promise<FileRecord> {
  if (opts.signal?.aborted) return Promise.reject(abortError());
  if (file.size >= RESUMABLE_THRESHOLD) return uploadResumable(file, opts, undefined, id);
  const form = new FormData();
  form.append('file', file, file.name);
  return sendForm('PATCH', `/files/${encodeURIComponent(id)}`, form, opts);
}

function tooLarge(): ApiError {
  return new ApiError(413, [{ message: 'The file is larger than the server accepts (its upload size limit).', code: 'CONTENT_TOO_LARGE' }]);
}

function abortError(): DOMException {
  return new DOMException('The upload was cancelled.', 'AbortError');
}

export function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'AbortError';
}

function uploadMultipart(file: File, opts: UploadOptions): Promise<FileRecord> {
  const form = new FormData();
  // Fields before the file: the server reads them when the file part arrives.
  if (opts.folder) form.append('folder', opts.folder);
  if (opts.title) form.append('title', opts.title);
  form.append('file', file, file.name);
  return sendForm('POST', '/files', form, opts);
}

function sendForm(method: string, path: string, form: FormData, opts: Pick<UploadOptions, 'onProgress' | 'signal'>, retried = false): Promise<FileRecord> {
  return new Promise<FileRecord>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    xhr.responseType = 'text';
    const onAbort = () => xhr.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => opts.signal?.removeEventListener('abort', onAbort);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) opts.onProgress?.(Math.min(1, e.loaded / e.total));
    };
    xhr.onabort = () => { done(); reject(abortError()); };
    xhr.onerror = () => { done(); reject(new ApiError(0, [{ message: 'Cannot reach the server.', code: 'NETWORK' }])); };
    xhr.onload = () => {
      done();
      void (async () => {
        if (xhr.status === 401 && !retried) {
          if (await refreshSession()) {
            sendForm(method, path, form, opts, true).then(resolve, reject);
            return;
          }
        }
        if (xhr.status === 413) {
          reject(tooLarge());
          return;
        }
        if (xhr.status < 200 || xhr.status >= 300) {
          reject(await errorFromResponse(new Response(xhr.responseText || null, { status: xhr.status })));
          return;
        }
        try {
          const body = JSON.parse(xhr.responseText) as { data: FileRecord | FileRecord[] };
          resolve(Array.isArray(body.data) ? body.data[0] : body.data);
        } catch {
          reject(new ApiError(xhr.status, [{ message: 'The server answered something that is not JSON.', code: 'UNKNOWN' }]));
        }
      })();
    };
    xhr.send(form);
  });
}

function tusEndpoint(): string {
  return `${location.origin}/tus`;
}

function statusOf(err: Error | DetailedError): number {
  const res = (err as DetailedError).originalResponse;
  return res ? res.getStatus() : 0;
}

async function tusError(err: Error | DetailedError): Promise<ApiError> {
  const res = (err as DetailedError).originalResponse;
  if (!res) return new ApiError(0, [{ message: 'Cannot reach the server.', code: 'NETWORK' }]);
  const status = res.getStatus();
  if (status === 413) return tooLarge();
  const parsed = await errorFromResponse(new Response(res.getBody() || null, { status }));
  if (parsed.items.length) return parsed;
  return new ApiError(status, [{ message: (res.getBody() || `The upload failed (${status}).`).trim(), code: 'UNKNOWN' }]);
}

/** Continues an unfinished upload (from `pendingUploads()`) with the file it was started with, picked again. */
export function resumeUpload(file: File, pending: PendingUpload, opts: Pick<UploadOptions, 'onProgress' | 'signal'> = {}): Promise<FileRecord> {
  if (!matchesPending(file, pending)) return Promise.reject(new ApiError(400, [{ message: `Pick the same file again: ${pending.filename}, ${pending.size} bytes.`, code: 'INVALID_PAYLOAD' }]));
  if (opts.signal?.aborted) return Promise.reject(abortError());
  return uploadResumable(file, opts, pending).then(async (record) => {
    await defaultOptions.urlStorage.removeUpload(pending.key);
    return record;
  });
}

function uploadResumable(file: File, opts: UploadOptions, resume?: PendingUpload, replaceId?: string): Promise<FileRecord> {
  return new Promise<FileRecord>((resolve, reject) => {
    let refreshed = false;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      reject(err);
    };
    const metadata: Record<string, string> = { filename: file.name, filetype: file.type || 'application/octet-stream' };
    if (opts.folder) metadata.folder = opts.folder;
    if (opts.title) metadata.title = opts.title;
    // A replacement continues under the file's id (the server's tus naming takes metadata `id`).
    if (replaceId) metadata.id = replaceId;
    const upload = new Upload(file, {
      endpoint: tusEndpoint(),
      // A pending upload picked again continues at its URL, whatever the file's modification time says now.
      ...(resume ? { uploadUrl: resume.url } : {}),
      chunkSize: CHUNK_SIZE,
      retryDelays: [0, 1000, 3000, 6000, 10000],
      metadata,
      // A replacement is not offered for resuming: the same bytes picked again must not continue it as a new file.
      storeFingerprintForResuming: !replaceId,
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => opts.onProgress?.(total > 0 ? Math.min(1, sent / total) : 0),
      // A 401 is answered by refreshing the session once (onError), not by the retry loop.
      onShouldRetry: (err) => {
        const status = statusOf(err);
        return status === 0 || status === 409 || status === 423 || status === 429 || status >= 500;
      },
      onError: (err) => {
        void (async () => {
          if (statusOf(err) === 401 && !refreshed) {
            refreshed = true;
            if (await refreshSession()) {
              upload.start();
              return;
            }
          }
          fail(await tusError(err));
        })();
      },
      onSuccess: () => {
        const id = (upload.url ?? '').split('/').pop() ?? '';
        request<FileRecord>('GET', `/files/${encodeURIComponent(id)}`).then((record) => {
          if (settled) return;
          settled = true;
          opts.signal?.removeEventListener('abort', onAbort);
          resolve(record);
        }, fail);
      },
    });
    function onAbort() {
      // A cancel ends the upload on the server too (DELETE /tus/{id}) and forgets its URL.
      void upload.abort(true).catch(() => {});
      fail(abortError());
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (resume || replaceId) {
      upload.start();
      return;
    }
    upload.findPreviousUploads().then((previous) => {
      if (settled) return;
      const latest = [...previous].sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0];
      if (latest) upload.resumeFromPreviousUpload(latest);
      upload.start();
    }, fail);
  });
}

/** An unfinished resumable upload this browser started (kept in localStorage by tus-js-client). */
export interface PendingUpload {
  key: string;
  url: string;
  filename: string;
  type: string | null;
  folder: string | null;
  size: number;
  /** Bytes the server has (HEAD Upload-Offset); null when it could not be asked. */
  offset: number | null;
  createdAt: string;
}

/** The unfinished uploads the server still holds for the signed-in user. Entries the server no longer knows
 * (expired, finished, cancelled) are forgotten; entries of another account on this browser are left alone. */
export async function pendingUploads(signal?: AbortSignal): Promise<PendingUpload[]> {
  const storage = defaultOptions.urlStorage;
  const entries: PreviousUpload[] = await storage.findAllUploads();
  const out: PendingUpload[] = [];
  for (const entry of entries) {
    if (!entry.uploadUrl || !entry.size) continue;
    let offset: number | null = null;
    try {
      const res = await fetch(entry.uploadUrl, { method: 'HEAD', headers: { 'Tus-Resumable': TUS_VERSION }, credentials: 'same-origin', signal, cache: 'no-store' });
      if (res.status === 404 || res.status === 410) {
        await storage.removeUpload(entry.urlStorageKey);
        continue;
      }
      if (res.status === 401 || res.status === 403) continue;
      if (res.ok) offset = Number(res.headers.get('Upload-Offset') ?? 'NaN');
      if (offset !== null && !Number.isFinite(offset)) offset = null;
    } catch (err) {
      if (signal?.aborted) throw err;
    }
    out.push({
      key: entry.urlStorageKey,
      url: entry.uploadUrl,
      filename: entry.metadata.filename ?? 'file',
      type: entry.metadata.filetype ?? null,
      folder: entry.metadata.folder ?? null,
      size: entry.size,
      offset,
      createdAt: entry.creationTime,
    });
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Gives up an unfinished upload: the server drops what it has, this browser forgets the URL. */
export async function discardPendingUpload(pending: Pick<PendingUpload, 'key' | 'url'>): Promise<void> {
  try {
    await fetch(pending.url, { method: 'DELETE', headers: { 'Tus-Resumable': TUS_VERSION }, credentials: 'same-origin' });
  } finally {
    await defaultOptions.urlStorage.removeUpload(pending.key);
  }
}

/** Whether a picked file is the one an unfinished upload was started with (same name, size and type). */
export function matchesPending(file: File, pending: Pick<PendingUpload, 'filename' | 'size' | 'type'>): boolean {
  return file.name === pending.filename && file.size === pending.size && (file.type || 'application/octet-stream') === (pending.type ?? 'application/octet-stream');
}
