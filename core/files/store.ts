/** Storing one incoming file: the bytes streamed into the driver under `{id}.{ext}` (through the upload
 * semaphore and the size limit, never buffered whole), then probed from storage. A failure of any step leaves
 * no object behind. Shared by multipart uploads, replacements and imports. */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FilesConfig } from './config.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { safeExtension } from '../storage/keys.ts';
import { assertMimeAllowed, ByteLimit, SniffedTypeGate } from './limits.ts';
import { sniffImage } from './sniff.ts';
import { probeStoredFile, type ProbedFile } from './metadata.ts';
import { storageKeyFor } from './names.ts';
import { uploadSlots } from './semaphore.ts';

export interface StoredFile extends ProbedFile {
  /** The storage key (svc_files.filename_disk). */
  filename_disk: string;
  filesize: number;
}

export interface StoreRequest {
  driver: StorageDriver;
  id: string;
  /** The client's file name (only its extension is used, through safeExtension). */
  filename: string;
  declaredType: string | null;
  data: Readable;
  config: FilesConfig;
}

function withoutParameters(type: string | null): string | null {
  const t = type?.split(';')[0].trim();
  return t ? t : null;
}

/** Streams `data` into storage and probes it. CONTENT_TOO_LARGE / UNSUPPORTED_MEDIA_TYPE leave nothing. */
export async function storeFile(req: StoreRequest): Promise<StoredFile> {
  const { driver, config } = req;
  const declared = withoutParameters(req.declaredType) ?? 'application/octet-stream';
  assertMimeAllowed(declared, config.mimeTypeAllowList);
  const key = storageKeyFor(req.id, safeExtension(req.filename));
  const limit = new ByteLimit(config.maxUploadSize);
  let stored = false;
  try {
    const size = await uploadSlots(config.maxUploadConcurrency).run(async () => {
      // Errors travel both ways: a failing source or limit fails the write, a failing write stops the source.
      const writing = driver.write(key, limit, declared).catch((err: unknown) => {
        limit.destroy();
        req.data.destroy();
        throw err;
      });
      const gate = new SniffedTypeGate(config.mimeTypeAllowList, sniffImage);
      const feeding = pipeline(req.data, gate, limit).catch((err: unknown) => {
        limit.destroy(err as Error);
        throw err;
      });
      // Both settle before the error travels on: the write's clean-up (its partial file) is done by then.
      let failure: { error: unknown } | null = null;
      const first = (error: unknown) => { failure ??= { error }; return null; };
      const [, bytes] = await Promise.all([feeding.catch(first), writing.catch(first)]);
      if (failure) throw (failure as { error: unknown }).error;
      return bytes as number;
    });
    stored = true;
    const probed = await probeStoredFile(driver, key, req.declaredType);
    // The bytes may say otherwise than the client did: the real type must be allowed too.
    assertMimeAllowed(probed.type ?? declared, config.mimeTypeAllowList);
    return { ...probed, type: probed.type ?? declared, filename_disk: key, filesize: size };
  } catch (err) {
    // A write that failed left nothing (the driver's contract), and the key may still hold the previous
    // content of a replaced file: only bytes this call stored are removed.
    if (stored) await driver.delete(key).catch(() => {});
    throw err;
  }
}
