/** Request body reading with MAX_PAYLOAD_SIZE enforced while streaming. */
import type { Context } from 'hono';
import { ContentTooLargeError, InvalidPayloadError, UnsupportedMediaTypeError } from '../../core/errors.ts';
import type { AppEnv } from './env.ts';
import { readBounded } from '../../core/streams/read-bounded.ts';

export async function readText(c: Context<AppEnv>): Promise<string> {
  const limit = c.get('services').config.maxPayloadSize;
  const length = c.req.header('content-length');
  const declared = length === undefined ? NaN : Number(length);
  if (declared > limit) throw new ContentTooLargeError();
  // A declared length is enforced by the HTTP parser, so the body can be read whole; this takes
  // @hono/node-server's fast path (no web stream / Request object per request).
  if (Number.isInteger(declared)) return declared === 0 ? '' : c.req.raw.text();
  const body = c.req.raw.body;
  if (!body) return '';
  const bytes = await readBounded(body, limit);
  if (bytes === null) throw new ContentTooLargeError();
  return bytes.toString('utf8');
}

export { readBounded };

/** The JSON body, or undefined for an empty body. Malformed JSON is a 400. */
export async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const type = c.req.header('content-type');
  if (type && !/^application\/(.+\+)?json\b/i.test(type) && !/^text\/plain\b/i.test(type)) {
    throw new UnsupportedMediaTypeError(`Unsupported media type "${type.split(';')[0]}".`);
  }
  const text = await readText(c);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidPayloadError('Invalid JSON body.');
  }
}

export async function readJsonObject(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const body = await readJson(c);
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidPayloadError('Body must be a JSON object.');
  return body as Record<string, unknown>;
}
