/** Bytes -> text for imports: a fatal UTF-8 decoder as a stream stage. An invalid byte sequence is INVALID_PAYLOAD
 * naming the byte offset where it was found (never replaced by U+FFFD and imported); a leading byte-order mark
 * is dropped. */
import { Transform, type TransformCallback } from 'node:stream';
import { InvalidPayloadError } from '../errors.ts';

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence (error path only). A
 * sequence cut at the end of `buf` is not an error here: the next chunk may complete it. */
export function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i];
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) { i++; continue; }
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) { need = 2; if (b === 0xe0) lo = 0xa0; if (b === 0xed) hi = 0x9f; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; if (b === 0xf0) lo = 0x90; if (b === 0xf4) hi = 0x8f; }
    else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= buf.length) return -1;
      const c = buf[i + k];
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

export class Utf8Decode extends Transform {
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  #offset = 0;

  /** Bytes decoded so far. */
  get bytes(): number {
    return this.#offset;
  }

  constructor() {
    super({ decodeStrings: true, encoding: 'utf8' });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let text: string;
    try {
      text = this.#decoder.decode(chunk, { stream: true });
    } catch {
      const at = firstInvalidUtf8(chunk);
      done(new InvalidPayloadError(`Invalid payload. The file is not valid UTF-8: invalid byte sequence at byte ${this.#offset + Math.max(at, 0)}.`));
      return;
    }
    this.#offset += chunk.length;
    done(null, text);
  }

  override _flush(done: TransformCallback): void {
    try {
      const tail = this.#decoder.decode();
      done(null, tail || undefined);
    } catch {
      done(new InvalidPayloadError('Invalid payload. The file is not valid UTF-8: it ends inside a multi-byte character.'));
    }
  }
}
