/** The request bodies of POST /versions and PATCH /versions/{id}. */
import { ErrorList, InvalidPayloadError } from '../errors.ts';
import { isPlainObject } from '../items/write/payload.ts';

const KEY_RE = /^[a-z0-9_-]{1,64}$/;

function invalid(field: string, message: string): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. ${message}`, { collection: 'svc_versions', field });
}

export interface CreateInput { key: string; name: string | null; collection: string; item: string; delta: unknown }
export interface UpdateInput { key?: string; name?: string | null; delta?: unknown }

function checkKey(value: unknown, errors: InvalidPayloadError[]): void {
  if (typeof value !== 'string' || !KEY_RE.test(value)) errors.push(invalid('key', '"key" must be a slug of 1 to 64 characters (a-z, 0-9, "-", "_").'));
}

function checkName(value: unknown, errors: InvalidPayloadError[]): void {
  if (value !== undefined && value !== null && (typeof value !== 'string' || value.length > 255)) errors.push(invalid('name', '"name" must be a string of at most 255 characters.'));
}

function raise(errors: InvalidPayloadError[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new ErrorList(errors);
}

export function parseCreate(raw: unknown): CreateInput {
  if (!isPlainObject(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const errors: InvalidPayloadError[] = [];
  for (const field of Object.keys(raw)) {
    if (!['key', 'name', 'collection', 'item', 'delta'].includes(field)) errors.push(invalid(field, `"${field}" is not allowed.`));
  }
  checkKey(raw.key, errors);
  checkName(raw.name, errors);
  if (typeof raw.collection !== 'string' || raw.collection === '') errors.push(invalid('collection', '"collection" is required.'));
  if (typeof raw.item !== 'string' || raw.item === '') errors.push(invalid('item', '"item" is required and must be a string.'));
  raise(errors);
  return { key: raw.key as string, name: (raw.name as string | null | undefined) ?? null, collection: raw.collection as string, item: raw.item as string, delta: raw.delta };
}

/** PATCH replaces the fields it names: `name`, `key` and `delta` (collection and item are fixed). */
export function parseUpdate(raw: unknown): UpdateInput {
  if (!isPlainObject(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const errors: InvalidPayloadError[] = [];
  for (const field of Object.keys(raw)) {
    if (!['key', 'name', 'delta'].includes(field)) errors.push(invalid(field, `"${field}" can't be changed.`));
  }
  if (raw.key !== undefined) checkKey(raw.key, errors);
  checkName(raw.name, errors);
  raise(errors);
  const out: UpdateInput = {};
  if (raw.key !== undefined) out.key = raw.key as string;
  if (raw.name !== undefined) out.name = raw.name as string | null;
  if (Object.hasOwn(raw, 'delta')) out.delta = raw.delta;
  return out;
}
