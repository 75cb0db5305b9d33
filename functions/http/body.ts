/** Request body reading with MAX_PAYLOAD_SIZE enforced while streaming. */
import type { Context } from 'hono';
import { ContentTooLargeError, InvalidPayloadError, UnsupportedMediaTypeError } from '../../core/errors.ts';
import type { AppEnv } from './env.ts';
import { readBounded } from '../../core/streams/read-bounded.ts';

/** `limit`: MAX_PAYLOAD_SIZE unless a route allows more. */
export async function readText(c: Context<AppEnv>, limit: number = c.get('services').config.maxPayloadSize): Promise<string> {
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

/** `application/json` or `application/<anything>+json`, with any parameters (`; charset=utf-8`). */
export function isJsonMediaType(type: string): boolean {
  return /^application\/([\w.+-]+\+)?json$/.test(type.split(';')[0].trim().toLowerCase());
}

function unsupported(type: string | undefined): UnsupportedMediaTypeError {
  const name = type ? `"${type.split(';')[0].trim()}"` : 'none';
  return new UnsupportedMediaTypeError(`Unsupported media type ${name}. Send JSON with Content-Type: application/json.`);
}

/** The body's text, read only when it is declared as JSON (the type is checked once, before reading). text/plain,
 * form types and a body without a type are what a cross-site form or a no-cors fetch may send without a CORS
 * preflight: reading them as JSON would let another site post to the API with the visitor's cookies. A JSON type
 * needs a preflight, which CORS then rules on. A request without a body needs no type. */
export async function readJsonText(c: Context<AppEnv>, limit?: number): Promise<string> {
  const type = c.req.header('content-type');
  if (type !== undefined && !isJsonMediaType(type)) throw unsupported(type);
  const text = await readText(c, limit);
  if (type === undefined && text.length > 0) throw unsupported(type);
  return text;
}

/** The JSON body, or undefined for an empty body. Malformed JSON is a 400; a body not declared as JSON is
 * 400 UNSUPPORTED_MEDIA_TYPE (readJsonText). */
export async function readJson(c: Context<AppEnv>, limit?: number): Promise<unknown> {
  const text = await readJsonText(c, limit);
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
