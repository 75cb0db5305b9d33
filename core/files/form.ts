/** Reading a multipart/form-data body with busboy, streaming: fields are collected, each file part handed to
 * the caller in order (the parser waits until the caller has consumed it), and any failure (a truncated body,
 * a client abort, limits, the caller's own error) stops the parser, erroring the part in flight. */
import busboy from 'busboy';
import type { Readable } from 'node:stream';
import type { ServiceContext } from '../context.ts';
import { InvalidPayloadError, ServiceError, UnsupportedMediaTypeError } from '../errors.ts';
import { clientFields, FILES } from './records.ts';

export interface ParseTarget {
  /** Called for each file part, in order; must consume the stream. */
  onFile(fields: Record<string, unknown>, storage: string | null, filename: string, type: string | null, data: Readable): Promise<void>;
}

export const MAX_FILES = 100;

/** Form values as the fields of svc_files take them: `null` as null, numbers and booleans for such fields,
 * JSON text parsed for json fields (tags, custom json fields), other text kept as sent. */
export function formFields(ctx: ServiceContext, raw: Record<string, unknown>): Record<string, unknown> {
  const fields = ctx.schema.collections[FILES]?.fields ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'string') {
      out[name] = value;
      continue;
    }
    const t = value.trim();
    const type = Object.hasOwn(fields, name) ? fields[name].type : null;
    if (t === 'null') out[name] = null;
    else if ((type === 'integer' || type === 'float') && /^-?\d+(\.\d+)?$/.test(t)) out[name] = Number(t);
    else if (type === 'boolean' && (t === 'true' || t === 'false')) out[name] = t === 'true';
    else if (type === 'json') {
      try {
        out[name] = JSON.parse(t) as unknown;
      } catch {
        throw new InvalidPayloadError(`Invalid payload. "${name}" must be JSON.`, { field: name });
      }
    } else out[name] = value;
  }
  return clientFields(out);
}

/** Reads the form; resolves with the fields after the last file part. */
export function parseForm(contentType: string, body: Readable, maxFieldSize: number, target: ParseTarget): Promise<Record<string, unknown>> {
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new UnsupportedMediaTypeError('Expected a multipart/form-data body.');
  }
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // Browsers and fetch's FormData send a part's filename as raw UTF-8 bytes; busboy's default (latin1)
      // would store `Bild-Ω.png` as `Bild-Î©.png`. An RFC 5987 `filename*` still names its own charset.
      bb = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { fieldSize: maxFieldSize, fields: 500, files: MAX_FILES, parts: 1000 },
      });
    } catch (err) {
      reject(new InvalidPayloadError(`Invalid multipart body: ${(err as Error).message}`));
      return;
    }
    let fields: Record<string, unknown> = {};
    let storage: string | null = null;
    let chain: Promise<void> = Promise.resolve();
    let failed = false;
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      body.unpipe(bb);
      body.destroy();
      // Destroying the parser errors the part being stored, so its write aborts (and frees its upload slot)
      // instead of waiting forever for bytes that will not come.
      bb.destroy(err instanceof Error ? err : new Error(String(err)));
      reject(err);
    };
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new InvalidPayloadError(`Invalid payload. Field "${name}" is too long.`));
      if (name === 'storage') storage = value;
      else fields[name] = value;
    });
    bb.on('file', (_name, stream, info) => {
      // A truncated body errors the part before its turn comes: the form's own 'error' answers it.
      stream.on('error', () => {});
      const own = fields;
      fields = {};
      chain = chain.then(async () => {
        if (failed) {
          stream.resume();
          return;
        }
        await target.onFile(own, storage, info.filename ?? '', info.mimeType ?? null, stream);
      }).catch((err: unknown) => {
        stream.resume();
        fail(err);
      });
    });
    bb.on('filesLimit', () => fail(new InvalidPayloadError(`Invalid payload. At most ${MAX_FILES} files per request.`)));
    bb.on('fieldsLimit', () => fail(new InvalidPayloadError('Invalid payload. Too many fields.')));
    bb.on('partsLimit', () => fail(new InvalidPayloadError('Invalid payload. Too many parts.')));
    bb.on('error', (err: Error) => fail(new InvalidPayloadError(`Invalid multipart body: ${err.message}`)));
    bb.on('close', () => {
      chain.then(() => {
        if (!failed) resolve(fields);
      }, () => {});
    });
    body.on('error', (err) => fail(err instanceof ServiceError ? err : new InvalidPayloadError(`Invalid multipart body: ${err.message}`)));
    body.pipe(bb);
  });
}
