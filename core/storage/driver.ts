/** The Storage port (DESIGN.md): where file bytes live. Drivers: `local` (a directory) and `objectstore`
 * (the S3 API). Keys are flat names chosen by the service (`{id}.{ext}`, `{base}__{hash}.{ext}`), checked by
 * `assertStorageKey` before any driver sees them, so no key can reach outside its root or bucket prefix. */
import type { Readable } from 'node:stream';

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export interface StoredObject {
  size: number;
  modified: Date;
}

export interface StorageDriver {
  readonly driver: 'local' | 'objectstore';
  /** Streams the object (or a byte range of it). NOT_FOUND when it does not exist. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Stores the stream under key; the object appears whole or not at all (a failed or aborted stream leaves
   * nothing behind). Resolves with the bytes written. */
  write(key: string, data: Readable, type?: string): Promise<number>;
  /** Size and modification time, or null when absent. */
  stat(key: string): Promise<StoredObject | null>;
  /** Removes the object; absent is fine. */
  delete(key: string): Promise<void>;
  /** Keys that start with prefix. */
  list(prefix: string): AsyncIterable<string>;
}
