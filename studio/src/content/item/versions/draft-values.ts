/** A draft between the API and the form. The preview read answers the item with the draft's delta laid over it, but
 * relational fields the draft changed come back as the delta holds them, in the API's write shape (an M2O as a key,
 * an O2M as {create, update, delete} against the item, an M2M as the list of its junction rows); the form shows
 * related items as objects. So those fields are rebuilt here from the item's own rows and the named lookups, and a
 * save turns them back into write shape: the O2M against the item (promote applies it to the item), everything
 * else as the value now. Only changed fields are sent (POST /versions/{id}/save merges them into the delta). */
import { fieldsOf, primaryKeyOf } from '../../schema.ts';
import { displayFields } from '../display.ts';
import type { EditorContext } from '../ItemPage.tsx';
import { keyOfValue, type FieldInfo } from '../model.ts';
import { m2mPayload, o2mPayload, savePayload } from '../payload.ts';
import { foundRow, LookupPlan, type Found, type Key } from './lookups.ts';

type Row = Record<string, unknown>;
type Ctx = Pick<EditorContext, 'allFields' | 'collections'>;

interface WriteShape { create?: unknown[]; update?: unknown[]; delete?: unknown[] }

export function isWriteShape(v: unknown): v is WriteShape {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && ('create' in v || 'update' in v || 'delete' in v);
}

const pkIn = (ctx: Ctx, collection: string) => primaryKeyOf(fieldsOf(ctx.allFields, collection));
const isKey = (v: unknown): v is Key => typeof v === 'string' || typeof v === 'number';
const objects = (v: unknown): Row[] => (Array.isArray(v) ? v.filter((x): x is Row => x !== null && typeof x === 'object') : []);
const sameKey = (a: unknown, b: unknown) => a !== null && a !== undefined && b !== null && b !== undefined && String(a) === String(b);

/** The fields a related item's name needs (its display template's paths). */
export function nameFields(ctx: Ctx, collection: string): string[] {
  return displayFields(collection, ctx.collections);
}

/** Keys the draft links to that the item's own rows do not name (newly picked related items, children moved in). */
export function draftLookups(infos: FieldInfo[], draft: Row, main: Row | null, ctx: Ctx): LookupPlan {
  const plan = new LookupPlan();
  for (const info of infos) {
    const name = info.field.field;
    if (!(name in draft) || !info.related) continue;
    const v = draft[name];
    const m = main?.[name];
    const relPk = pkIn(ctx, info.related);
    if (info.kind === 'm2o' || info.kind === 'file') {
      if (isKey(v) && !sameKey(keyOfValue(m, relPk), v)) plan.add(info.related, relPk, nameFields(ctx, info.related), [v]);
    } else if (info.kind === 'o2m') {
      const mainKeys = objects(m).map((r) => r[relPk]);
      const wanted = isWriteShape(v) ? (v.update ?? []).map((u) => keyOfValue(u, relPk)) : Array.isArray(v) ? v.filter(isKey) : [];
      plan.add(info.related, relPk, nameFields(ctx, info.related), wanted.filter((k): k is Key => k !== null && !mainKeys.some((mk) => sameKey(mk, k))));
    } else if (info.kind === 'm2m' && info.junction) {
      const jf = info.junction.field;
      const rows = Array.isArray(v) ? objects(v) : isWriteShape(v) ? objects(v.create) : [];
      plan.add(info.related, relPk, nameFields(ctx, info.related), rows.map((r) => r[jf]).filter(isKey));
    }
  }
  return plan;
}

function o2mRows(info: FieldInfo, v: unknown, m: unknown, ctx: Ctx, found: Found): unknown {
  const childPk = pkIn(ctx, info.related!);
  const mainRows = objects(m);
  const fields = nameFields(ctx, info.related!);
  const byKey = (k: unknown): Row => mainRows.find((r) => sameKey(r[childPk], k)) ?? foundRow(found, info.related!, fields, k) ?? { [childPk]: k };
  if (Array.isArray(v)) return v.map((el) => (el !== null && typeof el === 'object' ? el : byKey(el)));
  if (!isWriteShape(v)) return v;
  const deleted = (v.delete ?? []).map((d) => keyOfValue(d, childPk));
  const rows = mainRows.filter((r) => !deleted.some((d) => sameKey(d, r[childPk])));
  for (const u of v.update ?? []) {
    const k = keyOfValue(u, childPk);
    if (k === null) continue;
    const patch = u !== null && typeof u === 'object' ? u as Row : {};
    const at = rows.findIndex((r) => sameKey(r[childPk], k));
    if (at >= 0) rows[at] = { ...rows[at], ...patch };
    else rows.push({ ...byKey(k), ...patch });
  }
  for (const c of objects(v.create)) rows.push(c);
  const sort = info.sortField;
  if (sort) {
    const pos = (r: Row) => (r[sort] === null || r[sort] === undefined || r[sort] === '' ? Infinity : Number(r[sort]));
    return rows.map((r, i) => ({ r, i })).sort((a, b) => pos(a.r) - pos(b.r) || a.i - b.i).map((x) => x.r);
  }
  return rows;
}

function m2mRows(info: FieldInfo, v: unknown, m: unknown, ctx: Ctx, found: Found): unknown {
  const junctionPk = pkIn(ctx, info.relation!.collection);
  const jf = info.junction!.field;
  const mainRows = objects(m);
  const fields = nameFields(ctx, info.related!);
  let list: unknown[];
  if (Array.isArray(v)) list = v;
  else if (isWriteShape(v)) {
    const deleted = (v.delete ?? []).map((d) => keyOfValue(d, junctionPk));
    list = [...mainRows.filter((r) => !deleted.some((d) => sameKey(d, r[junctionPk]))), ...(v.create ?? [])];
  } else return v;
  return list.map((row) => {
    if (row === null || typeof row !== 'object') return mainRows.find((r) => sameKey(r[junctionPk], row)) ?? { __key: row };
    const r = row as Row;
    if (r[junctionPk] !== undefined && r[junctionPk] !== null) {
      const kept = mainRows.find((x) => sameKey(x[junctionPk], r[junctionPk]));
      return kept ? { ...kept, ...r, [jf]: r[jf] !== undefined && typeof r[jf] === 'object' ? r[jf] : kept[jf] } : r;
    }
    const far = r[jf];
    if (isKey(far)) return { ...r, [jf]: foundRow(found, info.related!, fields, far) ?? far };
    return r;
  });
}

/** The draft's values as the form shows them (relations as objects). `draft` is the preview read; `main` the item
 * as the form reads it (null for new content). */
export function draftFormValues(infos: FieldInfo[], draft: Row, main: Row | null, ctx: Ctx, found: Found): Row {
  const out: Row = { ...draft };
  for (const info of infos) {
    const name = info.field.field;
    if (!(name in draft) || !info.related) continue;
    const v = draft[name];
    const m = main?.[name];
    if (info.kind === 'm2o' || info.kind === 'file') {
      if (!isKey(v)) continue;
      const relPk = pkIn(ctx, info.related);
      out[name] = sameKey(keyOfValue(m, relPk), v) ? m : foundRow(found, info.related, nameFields(ctx, info.related), v) ?? v;
    } else if (info.kind === 'o2m') {
      out[name] = o2mRows(info, v, m, ctx, found);
    } else if (info.kind === 'm2m' && info.junction) {
      out[name] = m2mRows(info, v, m, ctx, found);
    }
  }
  return out;
}

/** What a draft's save sends: the fields edited since the draft was read, an O2M against the item's own children
 * (an O2M left as the item has it is still sent when the draft had changed it, which takes the change back). */
export function draftPayload(infos: FieldInfo[], edits: Row, draftBase: Row, inDelta: (field: string) => boolean, main: Row | null, ctx: EditorContext): Row {
  const out = savePayload(infos.filter((i) => i.kind !== 'o2m' && i.kind !== 'm2m'), edits, draftBase, ctx);
  for (const info of infos) {
    const name = info.field.field;
    if (!(name in edits)) continue;
    if (info.kind === 'o2m') {
      const p = o2mPayload(info, edits[name], main?.[name] ?? [], ctx);
      if (p.create.length + p.update.length + p.delete.length > 0 || inDelta(name)) out[name] = p;
    } else if (info.kind === 'm2m') {
      const now = m2mPayload(info, edits[name], ctx, false);
      if (JSON.stringify(now) !== JSON.stringify(m2mPayload(info, draftBase[name], ctx, false))) out[name] = now;
    }
  }
  return out;
}
