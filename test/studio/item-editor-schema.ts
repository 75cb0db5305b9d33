/** The content model the item editor's journeys work on, created through the API: `articles` with one field of
 * every type the editor has an input for (interfaces set where they matter; a required field, a read-only one, a
 * hidden one, a note, a condition that hides `embargo` while `published` is on, a validation with its message, a
 * unique slug), a group of number fields, an M2O to `authors`, an O2M to `chapters` ordered by `sort`, an M2M to
 * `tags` through `articles_tags`, and an image field (M2O to svc_files) with a small PNG uploaded through POST /files. */
import sharp from 'sharp';
import { expect } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import type { StudioServer } from './harness.ts';

/** A small PNG: a sea-blue field with a lighter band. */
async function png(): Promise<Buffer> {
  const band = await sharp({ create: { width: 96, height: 20, channels: 3, background: '#f2c14e' } }).png().toBuffer();
  return sharp({ create: { width: 96, height: 64, channels: 3, background: '#2a6f97' } }).composite([{ input: band, top: 30, left: 0 }]).png().toBuffer();
}

const pk = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true } };

export async function ok(server: StudioServer, method: string, path: string, body?: unknown): Promise<any> {
  const res = await server.t.req(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body?.data;
}

export interface Model { fileId: string; authors: Record<string, number>; tags: Record<string, number>; chapters: Record<string, number> }

export async function createModel(server: StudioServer): Promise<Model> {
  const call = (method: string, path: string, body?: unknown) => ok(server, method, path, body);
  await call('POST', '/collections', {
    collection: 'authors', meta: { display_template: '{{name}}' }, schema: {},
    fields: [pk, { field: 'name', type: 'string', meta: { interface: 'input' } }],
  });
  await call('POST', '/collections', {
    collection: 'tags', meta: { display_template: '{{label}}' }, schema: {},
    fields: [pk, { field: 'label', type: 'string' }],
  });
  await call('POST', '/collections', {
    collection: 'articles', meta: { display_template: '{{title}}' }, schema: {},
    fields: [
      pk,
      { field: 'title', type: 'string', meta: { interface: 'input', required: true, width: 'half', sort: 1, note: 'The headline readers see first.' } },
      { field: 'slug', type: 'string', schema: { is_unique: true }, meta: { interface: 'input', width: 'half', sort: 2 } },
      { field: 'code', type: 'string', meta: { interface: 'input', width: 'half', sort: 3, validation: { _and: [{ code: { _regex: '^[A-Z]{3}$' } }] }, validation_message: 'Use three capital letters, like ABC.' } },
      { field: 'status', type: 'string', meta: { interface: 'select-dropdown', width: 'half', sort: 4, options: { choices: [{ text: 'Draft', value: 'draft' }, { text: 'In review', value: 'review' }, { text: 'Published', value: 'published' }] } } },
      { field: 'summary', type: 'string', meta: { interface: 'input-multiline', width: 'full', sort: 5 } },
      { field: 'body', type: 'text', meta: { interface: 'input-rich-text-md', width: 'full', sort: 6 } },
      { field: 'notes', type: 'text', meta: { interface: 'input-multiline', width: 'full', sort: 7 } },
      { field: 'published', type: 'boolean', schema: { default_value: false }, meta: { interface: 'boolean', width: 'half', sort: 8 } },
      { field: 'embargo', type: 'date', meta: { interface: 'datetime', width: 'half', sort: 9, conditions: [{ name: 'Hidden once published', rule: { _and: [{ published: { _eq: true } }] }, hidden: true }] } },
      { field: 'publish_time', type: 'time', meta: { interface: 'datetime', width: 'half', sort: 10 } },
      { field: 'event_at', type: 'dateTime', meta: { interface: 'datetime', width: 'half', sort: 11 } },
      { field: 'stamped', type: 'timestamp', meta: { interface: 'datetime', width: 'half', sort: 12 } },
      { field: 'ref', type: 'uuid', meta: { interface: 'input', width: 'half', sort: 13 } },
      { field: 'numbers', type: 'alias', meta: { special: ['alias', 'no-data', 'group'], interface: 'group-detail', width: 'full', sort: 14, note: 'Counts and prices.' } },
      { field: 'count', type: 'integer', meta: { interface: 'input', width: 'half', sort: 1, group: 'numbers' } },
      { field: 'views', type: 'bigInteger', meta: { interface: 'input', width: 'half', sort: 2, group: 'numbers' } },
      { field: 'rating', type: 'float', meta: { interface: 'input', width: 'half', sort: 3, group: 'numbers' } },
      { field: 'price', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 2 }, meta: { interface: 'input', width: 'half', sort: 4, group: 'numbers' } },
      { field: 'settings', type: 'json', meta: { interface: 'input-code', width: 'full', sort: 15 } },
      { field: 'keywords', type: 'csv', meta: { interface: 'tags', width: 'full', sort: 16 } },
      { field: 'secret', type: 'hash', meta: { interface: 'input-hash', width: 'half', sort: 17 } },
      { field: 'legacy_code', type: 'string', schema: { default_value: 'L-001' }, meta: { interface: 'input', readonly: true, width: 'half', sort: 18 } },
      { field: 'internal', type: 'string', meta: { interface: 'input', hidden: true, sort: 19 } },
      { field: 'author', type: 'integer', meta: { interface: 'select-dropdown-m2o', special: ['m2o'], width: 'half', sort: 20 } },
      { field: 'cover', type: 'uuid', meta: { interface: 'file-image', special: ['file'], width: 'half', sort: 21 } },
    ],
  });
  await call('POST', '/collections', {
    collection: 'chapters', meta: { display_template: '{{title}}', sort_field: 'sort' }, schema: {},
    fields: [pk, { field: 'title', type: 'string' }, { field: 'sort', type: 'integer', meta: { hidden: true } }, { field: 'article', type: 'integer' }],
  });
  await call('POST', '/collections', {
    collection: 'articles_tags', meta: { hidden: true }, schema: {},
    fields: [pk, { field: 'articles_id', type: 'integer' }, { field: 'tags_id', type: 'integer' }],
  });
  await call('POST', '/relations', { collection: 'articles', field: 'author', related_collection: 'authors' });
  await call('POST', '/relations', { collection: 'articles', field: 'cover', related_collection: 'svc_files' });
  await call('POST', '/fields/articles', { field: 'chapters', type: 'alias', meta: { special: ['o2m'], interface: 'list-o2m', width: 'full', sort: 22 } });
  await call('POST', '/relations', { collection: 'chapters', field: 'article', related_collection: 'articles', meta: { one_field: 'chapters', sort_field: 'sort' } });
  await call('POST', '/fields/articles', { field: 'tags', type: 'alias', meta: { special: ['m2m'], interface: 'list-m2m', width: 'full', sort: 23 } });
  await call('POST', '/relations', { collection: 'articles_tags', field: 'tags_id', related_collection: 'tags', meta: { junction_field: 'articles_id' }, schema: { on_delete: 'CASCADE' } });
  await call('POST', '/relations', { collection: 'articles_tags', field: 'articles_id', related_collection: 'articles', meta: { one_field: 'tags', junction_field: 'tags_id', one_deselect_action: 'delete' }, schema: { on_delete: 'CASCADE' } });

  const authors: Record<string, number> = {};
  for (const name of ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson', 'Margaret Hamilton']) authors[name] = keyOf(await call('POST', '/items/authors', { name }));
  const tags: Record<string, number> = {};
  for (const label of ['science', 'history', 'computing']) tags[label] = keyOf(await call('POST', '/items/tags', { label }));
  const chapters: Record<string, number> = {};
  for (const title of ['Opening', 'Middle', 'Ending']) chapters[title] = keyOf(await call('POST', '/items/chapters', { title }));

  const form = new FormData();
  form.append('title', 'Harbour at dawn');
  form.append('file', new Blob([new Uint8Array(await png())], { type: 'image/png' }), 'harbour.png');
  const res = await fetch(`${server.url}/files`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: form });
  const body = await res.json() as { data: { id: string } };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { fileId: body.data.id, authors, tags, chapters };
}

/** POST answers the created item, or only its key without a fields parameter. */
export function keyOf(data: unknown): number {
  return typeof data === 'object' && data !== null ? (data as { id: number }).id : data as number;
}
