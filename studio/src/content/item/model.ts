/** What the editor makes of a collection's fields: each field's input kind (from its type, interface and relation),
 * the form's layout (groups and their children in meta.sort order), and the values a save sends. */
import { relationFor, type Field, type Relation } from '../schema.ts';

export type Kind =
  | 'string' | 'textarea' | 'markdown' | 'html' | 'number' | 'boolean' | 'date' | 'time' | 'datetime' | 'timestamp'
  | 'uuid' | 'json' | 'csv' | 'hash' | 'select' | 'm2o' | 'file' | 'o2m' | 'm2m' | 'group' | 'none';

export interface FieldInfo {
  field: Field;
  kind: Kind;
  /** For m2o/file: the related collection; for o2m: the child collection; for m2m: the far collection. */
  related?: string;
  relation?: Relation;
  /** M2M: the junction's relation to the far collection. */
  junction?: Relation;
  /** O2M: the child's sort field; M2M: the junction's sort field. */
  sortField?: string | null;
}

const GROUP_INTERFACES = new Set(['group-detail', 'group-raw', 'group-accordion']);

export function isGroup(field: Field): boolean {
  return field.type === 'alias' && (Boolean(field.meta?.special?.includes('group')) || GROUP_INTERFACES.has(field.meta?.interface ?? ''));
}

export function infoOf(field: Field, relations: Relation[] | undefined): FieldInfo {
  if (isGroup(field)) return { field, kind: 'group' };
  const rel = relationFor(relations, field.collection, field.field);
  if (rel) {
    if (rel.kind === 'file') return { field, kind: 'file', related: 'svc_files', relation: rel.relation };
    if (rel.kind === 'm2o') return { field, kind: 'm2o', related: rel.relation.related_collection ?? undefined, relation: rel.relation };
    if (rel.kind === 'o2m') return { field, kind: 'o2m', related: rel.relation.collection, relation: rel.relation, sortField: rel.relation.meta?.sort_field ?? null };
    if (rel.kind === 'm2m' || rel.kind === 'files') {
      return { field, kind: 'm2m', related: rel.junction?.related_collection ?? undefined, relation: rel.relation, junction: rel.junction, sortField: rel.relation.meta?.sort_field ?? null };
    }
    return { field, kind: 'none' };
  }
  const iface = field.meta?.interface ?? '';
  const choices = field.meta?.options?.choices;
  if ((iface === 'select-dropdown' || iface === 'select-radio') && Array.isArray(choices)) return { field, kind: 'select' };
  switch (field.type) {
    case 'string': return { field, kind: iface === 'input-multiline' ? 'textarea' : 'string' };
    case 'text':
      if (iface === 'input-rich-text-md') return { field, kind: 'markdown' };
      if (iface === 'input-rich-text-html') return { field, kind: 'html' };
      return { field, kind: 'textarea' };
    case 'integer': case 'bigInteger': case 'float': case 'decimal': return { field, kind: 'number' };
    case 'boolean': return { field, kind: 'boolean' };
    case 'date': return { field, kind: 'date' };
    case 'time': return { field, kind: 'time' };
    case 'dateTime': return { field, kind: 'datetime' };
    case 'timestamp': return { field, kind: 'timestamp' };
    case 'uuid': return { field, kind: 'uuid' };
    case 'json': return { field, kind: 'json' };
    case 'csv': return { field, kind: 'csv' };
    case 'hash': return { field, kind: 'hash' };
    default: return { field, kind: 'none' };
  }
}

export interface Choice { text: string; value: unknown }

export function choicesOf(field: Field): Choice[] {
  const raw = field.meta?.options?.choices;
  if (!Array.isArray(raw)) return [];
  return raw.map((c) => (c && typeof c === 'object' && 'value' in c ? { text: String((c as { text?: unknown }).text ?? (c as { value: unknown }).value), value: (c as { value: unknown }).value } : { text: String(c), value: c }));
}

/** The fields whose values the item query asks for, with one level of each relation expanded for display. */
export function readFields(infos: FieldInfo[]): string[] {
  const out = ['*'];
  for (const i of infos) {
    if (i.kind === 'm2o' || i.kind === 'file' || i.kind === 'o2m') out.push(`${i.field.field}.*`);
    if (i.kind === 'm2m' && i.junction) out.push(`${i.field.field}.*`, `${i.field.field}.${i.junction.field}.*`);
  }
  return out;
}

/** The empty values that `required` refuses. */
export function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** The key of a related value that may be an expanded object or a bare key. */
export function keyOfValue(value: unknown, pk: string): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') {
    const k = (value as Record<string, unknown>)[pk];
    return typeof k === 'string' || typeof k === 'number' ? k : null;
  }
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}
