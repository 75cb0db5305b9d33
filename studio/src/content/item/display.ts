/** How a related item is named in a picker or a list: the collection's display template ("{{title}} by
 * {{author.name}}"), else its first title-like field, else its key. */
import type { Collection, Field } from '../schema.ts';

const TITLE_FIELDS = ['title', 'name', 'label', 'heading', 'subject', 'email', 'filename_download', 'slug', 'code'];

function pathValue(item: Record<string, unknown>, path: string): unknown {
  let cur: unknown = item;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function displayOf(item: unknown, collection: string, collections: Collection[] | undefined, fields: Field[], pk: string): string {
  if (item === null || item === undefined) return '';
  if (typeof item !== 'object') return String(item);
  const row = item as Record<string, unknown>;
  const template = collections?.find((c) => c.collection === collection)?.meta?.display_template;
  if (template) {
    const text = template.replace(/\{\{\s*([\w.$]+)\s*\}\}/g, (_, path: string) => {
      const v = pathValue(row, path);
      return v === null || v === undefined || typeof v === 'object' ? '' : String(v);
    }).trim();
    if (text) return text;
  }
  for (const name of TITLE_FIELDS) {
    const v = row[name];
    if (typeof v === 'string' && v.trim()) return v;
  }
  const firstString = fields.find((f) => (f.type === 'string' || f.type === 'text') && !f.schema?.is_primary_key && typeof row[f.field] === 'string' && row[f.field]);
  if (firstString) return String(row[firstString.field]);
  const key = row[pk];
  return key === null || key === undefined ? '' : `#${String(key)}`;
}

/** Only the fields a display needs, for requests (the template's paths, or every field). */
export function displayFields(collection: string, collections: Collection[] | undefined): string[] {
  const template = collections?.find((c) => c.collection === collection)?.meta?.display_template;
  if (!template) return ['*'];
  const paths = [...template.matchAll(/\{\{\s*([\w.$]+)\s*\}\}/g)].map((m) => m[1]);
  return ['*', ...paths.filter((p) => p.includes('.'))];
}
