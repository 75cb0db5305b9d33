/** Batch schema payloads (PATCH /fields/{collection}, PATCH /collections): the array shape, its bound, and
 * error messages that say which entry was refused. */
import { InvalidPayloadError, ServiceError } from '../../errors.ts';
import { isPlainObject } from './names.ts';

/** The entries of a batch body: a JSON array of objects, at most `max` of them. */
export function batchEntries(body: unknown, max: number, what: string): Record<string, unknown>[] {
  if (!Array.isArray(body)) throw new InvalidPayloadError(`Body must be an array of ${what}.`);
  if (body.length > max) throw new InvalidPayloadError(`At most ${max} ${what} can be sent at once.`);
  return body.map((entry, i) => {
    if (!isPlainObject(entry) || Object.keys(entry).length === 0) throw new InvalidPayloadError(`body[${i}] must be a non-empty object.`);
    return entry;
  });
}

/** Runs one entry's change; a payload error from it is prefixed with `label`, so the caller learns which entry
 * of the batch was refused (404s and 403s already name what they refer to). */
export async function labelled<T>(label: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'INVALID_PAYLOAD') {
      throw new InvalidPayloadError(`${label}: ${err.message}`, err.extensions, err.reason);
    }
    throw err;
  }
}
