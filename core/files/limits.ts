/** Upload limits (SPEC.md > Limits): the MIME allow list and a byte counter that fails the stream, never
 * truncates it, once FILES_MAX_UPLOAD_SIZE is passed. */
import { Transform, type TransformCallback } from 'node:stream';
import { ContentTooLargeError, UnsupportedMediaTypeError } from '../errors.ts';

/** `*`, exact types and `type/*` patterns; parameters (`; charset=...`) are ignored. */
export function mimeAllowed(type: string | null, allowList: readonly string[]): boolean {
  if (allowList.includes('*')) return true;
  const t = (type ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
  return allowList.some((p) => (p.endsWith('/*') ? t.startsWith(p.slice(0, -1)) : p === t));
}

export function assertMimeAllowed(type: string | null, allowList: readonly string[]): void {
  if (!mimeAllowed(type, allowList)) throw new UnsupportedMediaTypeError(`File type "${(type ?? 'application/octet-stream').split(';')[0]}" is not allowed.`);
}

/** Passes bytes through, erroring with CONTENT_TOO_LARGE as soon as more than `max` have arrived. */
export class ByteLimit extends Transform {
  bytes = 0;
  exceeded = false;

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.max) {
      this.exceeded = true;
      done(new ContentTooLargeError(`File is larger than the maximum upload size of ${this.max} bytes.`));
      return;
    }
    done(null, chunk);
  }
}

/** Refuses, before the write completes, bytes whose magic number names an image type the allow list refuses
 * (a PNG declared as text/plain under `text/*`): the write aborts and leaves nothing, so a refused replacement
 * never overwrites the previous content. Types told only by a full probe are checked after the write. */
export class SniffedTypeGate extends Transform {
  #head: Buffer[] = [];
  #size = 0;
  #checked = false;

  constructor(private readonly allowList: readonly string[], private readonly sniff: (head: Buffer) => string | null) {
    super();
  }

  #check(): Error | null {
    this.#checked = true;
    const head = Buffer.concat(this.#head, this.#size);
    const type = this.sniff(head);
    return type && !mimeAllowed(type, this.allowList) ? new UnsupportedMediaTypeError(`File type "${type}" is not allowed.`) : null;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.#checked) return done(null, chunk);
    this.#head.push(chunk);
    this.#size += chunk.length;
    if (this.#size < 16) return done();
    const err = this.#check();
    if (err) return done(err);
    const held = Buffer.concat(this.#head, this.#size);
    this.#head = [];
    done(null, held);
  }

  override _flush(done: TransformCallback): void {
    if (this.#checked) return done();
    const err = this.#check();
    if (err) return done(err);
    done(null, Buffer.concat(this.#head, this.#size));
  }
}
