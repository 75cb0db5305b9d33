/** The JSON side of an import: a top-level array streamed element by element with stream-json (never the whole
 * body through JSON.parse). Each element must be an object; it becomes one item. */
import type { Duplex } from 'node:stream';
import streamArray from 'stream-json/streamers/stream-array.js';
import { InvalidPayloadError, ServiceError } from '../errors.ts';

export function jsonReader(): Duplex {
  return streamArray.withParserAsStream();
}

/** A stream-json failure (malformed JSON, a top level that is not an array) as INVALID_PAYLOAD. */
export function jsonError(err: unknown): unknown {
  if (err instanceof ServiceError) return err;
  if (err instanceof Error) {
    const top = /top-level|should be an array/i.test(err.message);
    return new InvalidPayloadError(top
      ? 'Invalid payload. A JSON import must be an array of objects.'
      : `Invalid payload. Malformed JSON: ${err.message.slice(0, 200)}`);
  }
  return err;
}
