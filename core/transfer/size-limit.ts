/** IMPORT_MAX_SIZE enforced while an import body arrives: the stream fails with CONTENT_TOO_LARGE as soon as more
 * bytes than allowed have passed (nothing of such a body is kept: the import's transaction rolls back). */
import { Transform, type TransformCallback } from 'node:stream';
import { ContentTooLargeError } from '../errors.ts';

export function importTooLarge(max: number): ContentTooLargeError {
  return new ContentTooLargeError(`Import is larger than the maximum size of ${max} bytes (IMPORT_MAX_SIZE).`);
}

export class ImportSizeLimit extends Transform {
  #bytes = 0;

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.max) done(importTooLarge(this.max));
    else done(null, chunk);
  }
}
