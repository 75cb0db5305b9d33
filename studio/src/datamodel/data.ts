/** The data model as its screens change it: field types and the interfaces the item editor renders for each, the
 * primary key a new collection gets, reading a collection's own fields, refreshing every screen's schema after a
 * change, and running a change that takes several requests as one (undoing what was made when a later step fails,
 * so nothing is left half-made). */
import type { QueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import type { Field } from '../content/schema.ts';

/** After any change: the content module, the lists and this module read the schema again. */
export async function refreshSchema(client: QueryClient): Promise<void> {
  await Promise.all(['collections', 'fields', 'relations', 'permissions-me'].map((key) => client.invalidateQueries({ queryKey: [key] })));
}

export const FIELD_TYPES: { type: string; label: string; note: string }[] = [
  { type: 'string', label: 'Text (short)', note: 'Up to a set length: names, titles, slugs.' },
  { type: 'text', label: 'Text (long)', note: 'Any length: bodies, notes, Markdown or HTML.' },
  { type: 'integer', label: 'Whole number', note: 'Up to about ±2 billion.' },
  { type: 'bigInteger', label: 'Big whole number', note: 'Up to about ±9 quintillion (sent as text).' },
  { type: 'float', label: 'Decimal (approximate)', note: 'Measurements and ratings.' },
  { type: 'decimal', label: 'Decimal (exact)', note: 'Money and other exact amounts (sent as text).' },
  { type: 'boolean', label: 'Yes / no', note: 'A switch.' },
  { type: 'date', label: 'Date', note: 'A day, without a time.' },
  { type: 'time', label: 'Time', note: 'A time of day.' },
  { type: 'dateTime', label: 'Date and time', note: 'Wall-clock, without a time zone.' },
  { type: 'timestamp', label: 'Timestamp', note: 'An instant, stored in UTC.' },
  { type: 'uuid', label: 'UUID', note: 'A universally unique id.' },
  { type: 'json', label: 'JSON', note: 'Structured data.' },
  { type: 'csv', label: 'Tags (comma separated)', note: 'A list of words.' },
  { type: 'hash', label: 'Hashed secret', note: 'Stored one-way; never shown again.' },
];

export function typeLabel(type: string): string {
  return FIELD_TYPES.find((t) => t.type === type)?.label ?? (type === 'alias' ? 'No column' : type);
}

/** The interfaces the item editor renders for a type (content/item/model.ts), the first the default. */
export const INTERFACES: Record<string, { id: string; label: string }[]> = {
  string: [{ id: 'input', label: 'Input' }, { id: 'input-multiline', label: 'Multi-line input' }, { id: 'select-dropdown', label: 'Dropdown' }, { id: 'select-radio', label: 'Radio buttons' }],
  text: [{ id: 'input-multiline', label: 'Multi-line input' }, { id: 'input-rich-text-md', label: 'Markdown editor' }, { id: 'input-rich-text-html', label: 'Rich text (HTML)' }],
  integer: [{ id: 'input', label: 'Number input' }, { id: 'select-dropdown', label: 'Dropdown' }],
  bigInteger: [{ id: 'input', label: 'Number input' }],
  float: [{ id: 'input', label: 'Number input' }],
  decimal: [{ id: 'input', label: 'Number input' }],
  boolean: [{ id: 'boolean', label: 'Switch' }],
  date: [{ id: 'datetime', label: 'Date picker' }],
  time: [{ id: 'datetime', label: 'Time picker' }],
  dateTime: [{ id: 'datetime', label: 'Date and time picker' }],
  timestamp: [{ id: 'datetime', label: 'Date and time picker' }],
  uuid: [{ id: 'input', label: 'Input' }],
  json: [{ id: 'input-code', label: 'Code editor' }],
  csv: [{ id: 'tags', label: 'Tags' }],
  hash: [{ id: 'input-hash', label: 'Password input' }],
};

export const DISPLAYS: { id: string; label: string }[] = [
  { id: '', label: 'As stored' },
  { id: 'formatted-value', label: 'Formatted value' },
  { id: 'labels', label: 'Labels (choices)' },
  { id: 'datetime', label: 'Date and time' },
  { id: 'boolean', label: 'Yes / no' },
  { id: 'related-values', label: 'Related values' },
];

export type KeyKind = 'integer' | 'uuid' | 'string';

/** The primary key field a new collection is created with. */
export function primaryKeyField(kind: KeyKind, name = 'id'): Record<string, unknown> {
  if (kind === 'uuid') return { field: name, type: 'uuid', schema: { is_primary_key: true }, meta: { special: ['uuid'], hidden: true, readonly: true, interface: 'input' } };
  if (kind === 'string') return { field: name, type: 'string', schema: { is_primary_key: true, max_length: 255 }, meta: { interface: 'input', required: true } };
  return { field: name, type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true, interface: 'input' } };
}

/** The type a foreign key to `collection` must have: its primary key's. */
export function keyTypeOf(fields: Field[], collection: string): string {
  return fields.find((f) => f.collection === collection && f.schema?.is_primary_key)?.type ?? 'integer';
}

/** Server names: letters, digits and "_", not starting with a digit, at most 63 (core/schema/ddl/names.ts). */
export const IDENTIFIER = /^[a-z_][a-z0-9_]*$/i;

export function identifierProblem(name: string, what: string): string | null {
  if (!name) return `Give the ${what} a name.`;
  if (name.length > 63) return 'At most 63 characters.';
  if (!IDENTIFIER.test(name)) return 'Letters, digits and “_” only, not starting with a digit (it becomes a database name).';
  return null;
}

/** A step of a change, with how to take it back if a later step fails. */
export interface Step { run(): Promise<unknown>; undo?(): Promise<unknown> }

/** Runs the steps in order; when one fails, undoes the ones done (newest first) and throws the failure. */
export async function runAll(steps: Step[]): Promise<void> {
  const done: Step[] = [];
  try {
    for (const step of steps) {
      await step.run();
      done.push(step);
    }
  } catch (err) {
    for (const step of done.reverse()) {
      try {
        await step.undo?.();
      } catch {
        // The original failure is what the person needs to read; an undo that fails leaves what the schema shows.
      }
    }
    throw err;
  }
}

export const api = {
  createField: (collection: string, body: Record<string, unknown>): Step => ({
    run: () => request('POST', `/fields/${encodeURIComponent(collection)}`, { body }),
    undo: () => request('DELETE', `/fields/${encodeURIComponent(collection)}/${encodeURIComponent(String(body.field))}`),
  }),
  createCollection: (body: Record<string, unknown>): Step => ({
    run: () => request('POST', '/collections', { body }),
    undo: () => request('DELETE', `/collections/${encodeURIComponent(String(body.collection))}`),
  }),
  createRelation: (body: Record<string, unknown>): Step => ({
    run: () => request('POST', '/relations', { body }),
    undo: () => request('DELETE', `/relations/${encodeURIComponent(String(body.collection))}/${encodeURIComponent(String(body.field))}`),
  }),
};
