/** The `local` driver: objects are files directly under one root directory. Writes go to a hidden temporary
 * name and are renamed into place once complete, so a reader never sees half a file and a failed upload
 * leaves nothing. */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, opendir, rename, stat, unlink } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NotFoundError } from '../errors.ts';
import type { ByteRange, StorageDriver, StoredObject } from './driver.ts';
import { assertStorageKey } from './keys.ts';

export class LocalDriver implements StorageDriver {
  readonly driver = 'local' as const;
  readonly #root: string;
  #ready: Promise<unknown> | null = null;

  constructor(root: string) {
    if (!isAbsolute(root)) throw new Error(`Local storage root must be an absolute path, got "${root}"`);
    this.#root = root;
  }

  #path(key: string): string {
    return join(this.#root, assertStorageKey(key));
  }

  #ensureRoot(): Promise<unknown> {
    this.#ready ??= mkdir(this.#root, { recursive: true });
    return this.#ready;
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.#path(key);
    const stream = createReadStream(path, range ? { start: range.start, end: range.end } : {});
    // Opening is asynchronous: wait for it so a missing file is a NOT_FOUND here, not a stream error later.
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new NotFoundError() : err));
    });
    return stream;
  }

  async write(key: string, data: Readable): Promise<number> {
    const path = this.#path(key);
    await this.#ensureRoot();
    const tmp = join(this.#root, `.${key}.${randomBytes(6).toString('hex')}.part`);
    const out = createWriteStream(tmp, { flags: 'wx' });
    try {
      await pipeline(data, out);
      await rename(tmp, path);
    } catch (err) {
      // The stream opens its file asynchronously: when the source fails first, the file appears only after that
      // open, so wait for the stream to close before removing it.
      if (!out.closed) await new Promise<void>((resolve) => { out.once('close', () => resolve()); out.destroy(); });
      await unlink(tmp).catch(() => {});
      throw err;
    }
    return out.bytesWritten;
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const s = await stat(this.#path(key));
      return s.isFile() ? { size: s.size, modified: s.mtime } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await unlink(this.#path(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  async *list(prefix: string): AsyncIterable<string> {
    let dir;
    try {
      dir = await opendir(this.#root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for await (const entry of dir) {
      if (entry.isFile() && !entry.name.startsWith('.') && entry.name.startsWith(prefix)) yield entry.name;
    }
  }
}
