/** A draft against its item, field by field, from GET /versions/{id}/compare ({current: the delta, main: the item
 * with its direct fields, relations to many as lists of keys}). Plain values side by side; relations in words:
 * "adds 2 tags: science, history; removes 1: computing". Related items are named through one bounded lookup per
 * collection (lookups.ts); only the first few of a long list are named. */
import { fieldsOf, primaryKeyOf, titleOf } from '../../schema.ts';
import type { EditorContext } from '../ItemPage.tsx';
import { displayOf } from '../display.ts';
import { labelText } from '../FieldInput.tsx';
import { infoOf, keyOfValue, type FieldInfo } from '../model.ts';
import { canonical, shown } from '../sidebar/format.ts';
import { isWriteShape, nameFields } from './draft-values.ts';
import { foundRow, LookupPlan, NAMED_LIMIT, type Found, type Key } from './lookups.ts';

type Row = Record<string, unknown>;
export type CompareCtx = Pick<EditorContext, 'allFields' | 'relations' | 'collections'>;

export interface Comparison {
  outdated: boolean;
  mainHash: string | null;
  current: Row | null;
  main: Row | null;
}

export interface CompareRow {
  field: string;
  label: string;
  main: string;
  draft: string;
  /** The draft's value is the item's. */
  same: boolean;
  relational: boolean;
}

const isKey = (v: unknown): v is Key => typeof v === 'string' || typeof v === 'number';
const keysOf = (v: unknown): Key[] => (Array.isArray(v) ? v.map((x) => (isKey(x) ? x : null)).filter((x): x is Key => x !== null) : []);
const objects = (v: unknown): Row[] => (Array.isArray(v) ? v.filter((x): x is Row => x !== null && typeof x === 'object') : []);

/** The fields of the delta in form order, with what the editor knows of them. */
export function deltaInfos(ctx: CompareCtx, collection: string, delta: Row): FieldInfo[] {
  const fields = fieldsOf(ctx.allFields, collection);
  const pk = primaryKeyOf(fields);
  return fields.filter((f) => f.field !== pk && Object.hasOwn(delta, f.field)).map((f) => infoOf(f, ctx.relations));
}

function pkIn(ctx: CompareCtx, collection: string): string {
  return primaryKeyOf(fieldsOf(ctx.allFields, collection));
}

/** M2M: junction rows named by their far item. */
function junctionFields(ctx: CompareCtx, info: FieldInfo): string[] {
  const jf = info.junction!.field;
  return [pkIn(ctx, info.relation!.collection), ...nameFields(ctx, info.related!).map((p) => `${jf}.${p}`)];
}

export function compareLookups(ctx: CompareCtx, collection: string, cmp: Comparison): LookupPlan {
  const plan = new LookupPlan();
  const delta = cmp.current ?? {};
  for (const info of deltaInfos(ctx, collection, delta)) {
    if (!info.related) continue;
    const name = info.field.field;
    const v = delta[name];
    const m = cmp.main?.[name];
    const relPk = pkIn(ctx, info.related);
    const names = nameFields(ctx, info.related);
    if (info.kind === 'm2o' || info.kind === 'file') {
      plan.add(info.related, relPk, names, [m, v].filter(isKey));
    } else if (info.kind === 'o2m') {
      const mainKeys = keysOf(m);
      const wanted: Key[] = mainKeys.slice(0, NAMED_LIMIT);
      if (isWriteShape(v)) {
        for (const u of v.update ?? []) { const k = keyOfValue(u, relPk); if (k !== null && !mainKeys.some((x) => String(x) === String(k))) wanted.push(k); }
        wanted.push(...(v.delete ?? []).map((d) => keyOfValue(d, relPk)).filter((k): k is Key => k !== null).slice(0, NAMED_LIMIT));
      } else wanted.push(...keysOf(v).slice(0, NAMED_LIMIT));
      plan.add(info.related, relPk, names, wanted);
    } else if (info.kind === 'm2m' && info.junction) {
      const jf = info.junction.field;
      const jpk = pkIn(ctx, info.relation!.collection);
      const mainKeys = keysOf(m);
      const kept = new Set(rowsOfM2m(v).map((r) => r[jpk]).filter(isKey).map(String));
      const removed = mainKeys.filter((k) => !kept.has(String(k)));
      const deleted = isWriteShape(v) ? (v.delete ?? []).filter(isKey) : [];
      plan.add(info.relation!.collection, jpk, junctionFields(ctx, info), [...mainKeys.slice(0, NAMED_LIMIT), ...removed.slice(0, NAMED_LIMIT), ...deleted.slice(0, NAMED_LIMIT)]);
      plan.add(info.related, relPk, names, rowsOfM2m(v).map((r) => r[jf]).filter(isKey).slice(0, NAMED_LIMIT));
    }
  }
  return plan;
}

/** The rows an M2M value lists (an array of junction rows, or the created ones of a write shape). */
function rowsOfM2m(v: unknown): Row[] {
  if (Array.isArray(v)) return objects(v);
  if (isWriteShape(v)) return objects(v.create);
  return [];
}

/** "science, history and 3 more" */
export function namesText(names: string[], total = names.length): string {
  const shownNames = names.slice(0, NAMED_LIMIT);
  const more = total - shownNames.length;
  if (shownNames.length === 0) return more > 0 ? `${more} ${more === 1 ? 'item' : 'items'}` : '';
  return more > 0 ? `${shownNames.join(', ')} and ${more} more` : shownNames.join(', ');
}

function noun(collection: string, n: number): string {
  const plural = titleOf(collection).toLowerCase();
  if (n !== 1) return plural;
  return /[^s]s$/.test(plural) ? plural.slice(0, -1) : plural;
}

/** "adds 2 tags: science, history; removes 1: computing; reorders them" */
export function changeSentence(collection: string, added: string[], removed: string[], extra: string[]): string {
  const parts: string[] = [];
  if (added.length > 0) parts.push(`adds ${added.length} ${noun(collection, added.length)}: ${namesText(added)}`);
  if (removed.length > 0) parts.push(`removes ${removed.length}${added.length > 0 ? '' : ` ${noun(collection, removed.length)}`}: ${namesText(removed)}`);
  parts.push(...extra);
  if (parts.length === 0) return 'no change';
  const text = parts.join('; ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function compareRows(ctx: CompareCtx, collection: string, cmp: Comparison, found: Found): CompareRow[] {
  const delta = cmp.current ?? {};
  const main = cmp.main;
  const rows: CompareRow[] = [];
  for (const info of deltaInfos(ctx, collection, delta)) {
    const name = info.field.field;
    const label = labelText(info);
    const v = delta[name];
    const m = main?.[name];
    if (info.kind === 'group') continue;
    if (!info.related) {
      const hidden = info.kind === 'hash';
      rows.push({
        field: name, label, relational: false,
        main: hidden ? (m ? 'A value is set' : '') : shown(info, m),
        draft: hidden ? 'A new value' : shown(info, v),
        same: !hidden && main !== null && canonical(info, v) === canonical(info, m),
      });
      continue;
    }
    const related = info.related;
    const relPk = pkIn(ctx, related);
    const relFields = fieldsOf(ctx.allFields, related);
    const names = nameFields(ctx, related);
    const nameOf = (row: unknown, key?: unknown): string => {
      const r = row ?? foundRow(found, related, names, key);
      if (r && typeof r === 'object') return displayOf(r, related, ctx.collections, relFields, relPk) || `#${String(key ?? keyOfValue(r, relPk) ?? '')}`;
      return key === null || key === undefined ? '' : `#${String(key)}`;
    };
    if (info.kind === 'm2o' || info.kind === 'file') {
      const draftText = v === null || v === undefined ? '' : isKey(v) ? nameOf(null, v) : `${nameOf(v)} (new)`;
      rows.push({ field: name, label, relational: true, main: isKey(m) ? nameOf(null, m) : '', draft: draftText, same: isKey(v) && isKey(m) && String(v) === String(m) });
      continue;
    }
    const mainKeys = keysOf(m);
    if (info.kind === 'o2m') {
      const mainText = namesText(mainKeys.slice(0, NAMED_LIMIT).map((k) => nameOf(null, k)), mainKeys.length);
      let added: string[] = [];
      let removed: string[] = [];
      const extra: string[] = [];
      if (isWriteShape(v)) {
        added = objects(v.create).map((c) => `${nameOf(c) || 'an untitled item'} (new)`);
        let reordered = 0;
        let edited = 0;
        for (const u of v.update ?? []) {
          const k = keyOfValue(u, relPk);
          if (k === null) continue;
          if (!mainKeys.some((x) => String(x) === String(k))) added.push(nameOf(null, k));
          else if (u && typeof u === 'object' && Object.keys(u).some((f) => f !== relPk && f !== info.sortField)) edited++;
          else reordered++;
        }
        removed = (v.delete ?? []).map((d) => keyOfValue(d, relPk)).filter((k): k is Key => k !== null).map((k) => nameOf(null, k));
        if (edited > 0) extra.push(`edits ${edited}`);
        if (reordered > 0) extra.push('changes the order');
      } else if (Array.isArray(v)) {
        const now = v.map((x) => (isKey(x) ? x : keyOfValue(x, relPk)));
        added = v.filter((x, i) => now[i] === null || !mainKeys.some((k) => String(k) === String(now[i]))).map((x) => (isKey(x) ? nameOf(null, x) : `${nameOf(x)} (new)`));
        removed = mainKeys.filter((k) => !now.some((n) => n !== null && String(n) === String(k))).map((k) => nameOf(null, k));
      }
      const sentence = changeSentence(related, added, removed, extra);
      rows.push({ field: name, label, relational: true, main: mainText, draft: sentence, same: sentence === 'no change' });
      continue;
    }
    if (info.kind === 'm2m' && info.junction) {
      const jf = info.junction.field;
      const junction = info.relation!.collection;
      const jpk = pkIn(ctx, junction);
      const jFields = junctionFields(ctx, info);
      const farName = (junctionKey: Key) => {
        const row = foundRow(found, junction, jFields, junctionKey);
        return row ? nameOf(row[jf], keyOfValue(row[jf], relPk)) : `#${String(junctionKey)}`;
      };
      const mainText = namesText(mainKeys.slice(0, NAMED_LIMIT).map(farName), mainKeys.length);
      const listed = rowsOfM2m(v);
      const added = listed.filter((r) => !isKey(r[jpk])).map((r) => (isKey(r[jf]) ? nameOf(null, r[jf]) : `${nameOf(r[jf])} (new)`));
      let removed: Key[];
      const extra: string[] = [];
      if (Array.isArray(v)) {
        const keptOrder = listed.map((r) => r[jpk]).filter(isKey).map(String);
        removed = mainKeys.filter((k) => !keptOrder.includes(String(k)));
        const mainOrder = mainKeys.map(String).filter((k) => keptOrder.includes(k));
        if (info.sortField && keptOrder.join() !== mainOrder.join()) extra.push('changes the order');
      } else removed = isWriteShape(v) ? (v.delete ?? []).filter(isKey) : [];
      const sentence = changeSentence(related, added, removed.map(farName), extra);
      rows.push({ field: name, label, relational: true, main: mainText, draft: sentence, same: sentence === 'no change' });
    }
  }
  return rows;
}
