/** A rich schema built through the API, for the schema-as-code tests: a folder, every field type, a uuid key, a
 * singleton, a field group, indexes and a unique field, the search index, and every relation kind (M2O with its O2M,
 * M2M through a junction, M2A), plus a permission with a filter on it. */
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';

async function ok(t: TestApp, method: string, path: string, body?: unknown): Promise<any> {
  const res = await t.req(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body?.data;
}

const pk = { field: 'id', type: 'integer', meta: { hidden: true, interface: 'input', readonly: true }, schema: { is_primary_key: true, has_auto_increment: true } };

export async function buildRichSchema(t: TestApp): Promise<void> {
  await ok(t, 'POST', '/collections', { collection: 'content', meta: { icon: 'folder', note: 'Everything published' }, schema: null });
  await ok(t, 'POST', '/collections', {
    collection: 'authors', meta: { group: 'content', icon: 'person', display_template: '{{name}}' }, schema: {},
    fields: [
      { field: 'id', type: 'uuid', meta: { hidden: true, special: ['uuid'] }, schema: { is_primary_key: true } },
      { field: 'name', type: 'string', meta: { interface: 'input', required: true }, schema: { max_length: 100, is_nullable: false, is_indexed: true } },
      { field: 'email', type: 'string', meta: { interface: 'input' }, schema: { is_unique: true } },
      { field: 'bio', type: 'text', meta: { interface: 'input-multiline' }, schema: {} },
    ],
  });
  await ok(t, 'POST', '/collections', {
    collection: 'articles', meta: { group: 'content', sort: 2, search_index: true, archive_field: 'status', archive_value: 'archived', unarchive_value: 'draft' },
    schema: {},
    fields: [
      pk,
      { field: 'title', type: 'string', meta: { interface: 'input', width: 'full', validation: { _and: [{ title: { _nempty: true } }] }, validation_message: 'A title' }, schema: { is_nullable: false, default_value: 'Untitled' } },
      { field: 'status', type: 'string', meta: { interface: 'select-dropdown', options: { choices: [{ text: 'Draft', value: 'draft' }, { text: 'Published', value: 'published' }, { text: 'Archived', value: 'archived' }] } }, schema: { default_value: 'draft' } },
      { field: 'body', type: 'text', meta: { interface: 'input-rich-text-html' }, schema: {} },
      { field: 'rating', type: 'decimal', meta: null, schema: { numeric_precision: 8, numeric_scale: 2 } },
      { field: 'views', type: 'bigInteger', meta: null, schema: { is_indexed: true, default_value: 0 } },
      { field: 'featured', type: 'boolean', meta: { interface: 'boolean' }, schema: { default_value: false } },
      { field: 'ratio', type: 'float', meta: null, schema: {} },
      { field: 'published_on', type: 'timestamp', meta: null, schema: {} },
      { field: 'local_time', type: 'dateTime', meta: null, schema: {} },
      { field: 'day', type: 'date', meta: null, schema: {} },
      { field: 'at', type: 'time', meta: null, schema: {} },
      { field: 'data', type: 'json', meta: { interface: 'input-code' }, schema: {} },
      { field: 'labels', type: 'csv', meta: { interface: 'tags' }, schema: {} },
      { field: 'pin', type: 'hash', meta: null, schema: {} },
      { field: 'ref', type: 'uuid', meta: null, schema: {} },
      { field: 'author', type: 'uuid', meta: { interface: 'select-dropdown-m2o', special: ['m2o'] }, schema: {} },
    ],
  });
  await ok(t, 'POST', '/fields/articles', { field: 'details', type: 'alias', meta: { special: ['group'], interface: 'group-detail' } });
  await ok(t, 'PATCH', '/fields/articles/body', { meta: { group: 'details' } });
  await ok(t, 'POST', '/relations', {
    collection: 'articles', field: 'author', related_collection: 'authors',
    meta: { one_field: 'articles' }, schema: { on_delete: 'SET NULL' },
  });
  // M2M: articles.tags through articles_tags.
  await ok(t, 'POST', '/collections', { collection: 'tags', meta: { group: 'content' }, schema: {}, fields: [pk, { field: 'name', type: 'string', meta: null, schema: {} }] });
  await ok(t, 'POST', '/collections', {
    collection: 'articles_tags', meta: { hidden: true }, schema: {},
    fields: [pk, { field: 'articles_id', type: 'integer', meta: { hidden: true }, schema: {} }, { field: 'tags_id', type: 'integer', meta: { hidden: true }, schema: {} }],
  });
  await ok(t, 'POST', '/fields/articles', { field: 'tags', type: 'alias', meta: { special: ['m2m'], interface: 'list-m2m' } });
  await ok(t, 'POST', '/relations', {
    collection: 'articles_tags', field: 'articles_id', related_collection: 'articles',
    meta: { one_field: 'tags', junction_field: 'tags_id' }, schema: { on_delete: 'CASCADE' },
  });
  await ok(t, 'POST', '/relations', {
    collection: 'articles_tags', field: 'tags_id', related_collection: 'tags', meta: { junction_field: 'articles_id' }, schema: { on_delete: 'CASCADE' },
  });
  // M2A: pages.blocks through pages_blocks.
  await ok(t, 'POST', '/collections', { collection: 'block_hero', schema: {}, fields: [pk, { field: 'headline', type: 'string', meta: null, schema: {} }] });
  await ok(t, 'POST', '/collections', { collection: 'block_text', schema: {}, fields: [pk, { field: 'text', type: 'text', meta: null, schema: {} }] });
  await ok(t, 'POST', '/collections', { collection: 'pages', schema: {}, fields: [pk, { field: 'slug', type: 'string', meta: null, schema: { is_unique: true } }] });
  await ok(t, 'POST', '/collections', {
    collection: 'pages_blocks', meta: { hidden: true }, schema: {},
    fields: [pk, { field: 'pages_id', type: 'integer', meta: null, schema: {} }, { field: 'item', type: 'string', meta: null, schema: {} },
      { field: 'collection', type: 'string', meta: null, schema: {} }, { field: 'sort', type: 'integer', meta: { hidden: true }, schema: {} }],
  });
  await ok(t, 'POST', '/fields/pages', { field: 'blocks', type: 'alias', meta: { special: ['m2a'], interface: 'list-m2a' } });
  await ok(t, 'POST', '/relations', {
    collection: 'pages_blocks', field: 'item', related_collection: null,
    meta: { one_allowed_collections: ['block_hero', 'block_text'], one_collection_field: 'collection', junction_field: 'pages_id' },
  });
  await ok(t, 'POST', '/relations', {
    collection: 'pages_blocks', field: 'pages_id', related_collection: 'pages',
    meta: { one_field: 'blocks', junction_field: 'item', sort_field: 'sort' }, schema: { on_delete: 'CASCADE' },
  });
  await ok(t, 'POST', '/collections', {
    collection: 'home', meta: { singleton: true, note: 'The home page' }, schema: {},
    fields: [pk, { field: 'headline', type: 'string', meta: { interface: 'input' }, schema: { max_length: 120 } }],
  });
}

/** The parts a snapshot compares: what two databases with the same schema must give alike. */
export function comparable(snapshot: any): { collections: unknown; fields: unknown; relations: unknown } {
  return { collections: snapshot.collections, fields: snapshot.fields, relations: snapshot.relations };
}
