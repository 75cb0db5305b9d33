/** What a save sends, in Directus' shapes: scalar values as the API takes them, an M2O as the related key, an O2M as
 * `{create, update, delete}` (new children, children linked or moved, children let go), an M2M as the full list of
 * its junction rows (kept rows by their key, new rows naming the related item; rows not listed are removed). With
 * a sort field, each row carries its position. */
import { fieldsOf, primaryKeyOf } from '../schema.ts';
import type { EditorContext } from './ItemPage.tsx';
import { keyOfValue, type FieldInfo } from './model.ts';
import { sameValue } from './values.ts';

type Row = Record<string, unknown>;

export function pkOf(ctx: Pick<EditorContext, 'allFields'>, collection: string): string {
  return primaryKeyOf(fieldsOf(ctx.allFields, collection));
}

function asRows(value: unknown): Row[] {
  return Array.isArray(value) ? value.map((v) => (v && typeof v === 'object' ? v as Row : { __key: v })) : [];
}

/** A row's key (rows read as bare keys are wrapped as {__key}). */
function rowKey(row: Row, pk: string): string | number | null {
  if ('__key' in row) return row.__key as string | number;
  return keyOfValue(row, pk);
}

export function o2mPayload(info: FieldInfo, value: unknown, stored: unknown, ctx: EditorContext) {
  const childPk = pkOf(ctx, info.related!);
  const sort = info.sortField ?? null;
  const before = asRows(stored);
  const beforeKeys = before.map((r) => rowKey(r, childPk));
  const rows = asRows(value);
  const create: Row[] = [];
  const update: Row[] = [];
  rows.forEach((row, index) => {
    const key = rowKey(row, childPk);
    if (key === null) {
      const { __key: _k, ...data } = row;
      create.push(sort ? { ...data, [sort]: index + 1 } : data);
      return;
    }
    const was = beforeKeys.findIndex((k) => k !== null && String(k) === String(key));
    if (was < 0) update.push(sort ? { [childPk]: key, [sort]: index + 1 } : { [childPk]: key });
    else if (sort && (was !== index || Number((before[was] as Row)[sort]) !== index + 1)) update.push({ [childPk]: key, [sort]: index + 1 });
  });
  const kept = new Set(rows.map((r) => rowKey(r, childPk)).filter((k) => k !== null).map(String));
  const del = beforeKeys.filter((k): k is string | number => k !== null && !kept.has(String(k)));
  return { create, update, delete: del };
}

export function m2mPayload(info: FieldInfo, value: unknown, ctx: EditorContext, asCopy: boolean) {
  const junctionCollection = info.relation!.collection;
  const junctionPk = pkOf(ctx, junctionCollection);
  const junctionField = info.junction!.field;
  const farPk = pkOf(ctx, info.related!);
  const sort = info.sortField ?? null;
  return asRows(value).map((row, index) => {
    const existing = asCopy ? null : rowKey(row, junctionPk);
    // A far item created in place goes as its object (created with the save); a picked one by its key.
    const far = row[junctionField];
    const farKey = keyOfValue(far, farPk);
    const out: Row = existing !== null ? { [junctionPk]: existing } : { [junctionField]: farKey !== null ? farKey : far };
    if (sort) out[sort] = index + 1;
    return out;
  });
}

function valueFor(info: FieldInfo, value: unknown, stored: unknown, ctx: EditorContext, asCopy: boolean): unknown {
  switch (info.kind) {
    case 'm2o': case 'file':
      return value === null || value === undefined ? null : keyOfValue(value, pkOf(ctx, info.related!));
    case 'o2m':
      return o2mPayload(info, value, asCopy ? [] : stored, ctx);
    case 'm2m':
      return m2mPayload(info, value, ctx, asCopy);
    default:
      return value;
  }
}

/** The changed fields of an edit (a new item: every edited field). */
export function savePayload(infos: FieldInfo[], edits: Row, base: Row, ctx: EditorContext): Row {
  const out: Row = {};
  for (const info of infos) {
    const name = info.field.field;
    if (!(name in edits)) continue;
    const value = edits[name];
    if (info.kind === 'hash' && (value === undefined || value === '')) continue;
    if (info.kind !== 'o2m' && info.kind !== 'm2m' && sameValue(value, base[name]) && name in base) continue;
    if (info.kind === 'o2m') {
      const p = o2mPayload(info, value, base[name], ctx);
      if (p.create.length + p.update.length + p.delete.length === 0) continue;
      out[name] = p;
      continue;
    }
    if (info.kind === 'm2m') {
      const junctionPk = pkOf(ctx, info.relation!.collection);
      const now = asRows(value).map((r) => rowKey(r, junctionPk) ?? 'new');
      const was = asRows(base[name]).map((r) => rowKey(r, junctionPk));
      if (JSON.stringify(now) === JSON.stringify(was)) continue;
    }
    out[name] = valueFor(info, value, base[name], ctx, false);
  }
  return out;
}

/** Every given field's current value, for a copy: no primary key, no O2M (its children belong to the original),
 * M2M rows as new junction rows, a hash only when one was typed. */
export function copyPayload(infos: FieldInfo[], values: Row, pk: string, ctx: EditorContext): Row {
  const out: Row = {};
  for (const info of infos) {
    const name = info.field.field;
    if (name === pk || info.kind === 'o2m' || info.kind === 'group' || info.kind === 'none') continue;
    if (!(name in values)) continue;
    const value = values[name];
    if (info.kind === 'hash') {
      if (typeof value === 'string' && value !== '' && value !== '**********') out[name] = value;
      continue;
    }
    out[name] = valueFor(info, value, undefined, ctx, true);
  }
  return out;
}
