/** References between configuration rows as a snapshot writes them: roles and policies by name, users by email.
 * Ids are looked up on each side, never carried over. */
import { readRecords } from '../../../admin/system-records.ts';
import type { ServiceContext } from '../../../context.ts';
import { InvalidPayloadError } from '../../../errors.ts';
import { selectEmailsOf, selectUsersByEmails } from '../../../users/table.ts';
import { isPlainObject } from '../../ddl/names.ts';
import { stableJson } from '../snapshot.ts';
import type { Row } from './types.ts';

export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Every row of a system collection (through the items read service, so its owner's permissions and shapes apply). */
export async function allRows(ctx: ServiceContext, collection: string, fields: string[], sort: string[]): Promise<Row[]> {
  return (await readRecords(ctx, collection, { fields, sort, limit: -1 })).data;
}

export interface NameMap {
  nameOf(id: unknown): string | null;
  idOf(name: unknown, what: string): string | null;
}

/** Ids and names of svc_roles or svc_policies (names must be unique to be matched across databases). */
export async function names(ctx: ServiceContext, collection: 'svc_roles' | 'svc_policies'): Promise<NameMap> {
  const rows = await allRows(ctx, collection, ['id', 'name'], ['name', 'id']);
  const byId = new Map(rows.map((r) => [String(r.id), String(r.name)]));
  const byName = new Map<string, string>();
  for (const r of rows) byName.set(String(r.name), String(r.id));
  const label = collection === 'svc_roles' ? 'role' : 'policy';
  return {
    nameOf: (id) => (id === null || id === undefined ? null : byId.get(String(id)) ?? null),
    idOf: (name, what) => {
      if (name === null || name === undefined) return null;
      const id = byName.get(String(name));
      if (!id) throw new InvalidPayloadError(`${what}: there is no ${label} named "${String(name)}".`);
      return id;
    },
  };
}

/** Two rows of the same table with the same name can't be told apart in a snapshot. */
export function requireUniqueNames(rows: Row[], label: string): void {
  const seen = new Set<string>();
  for (const r of rows) {
    const name = String(r.name);
    if (seen.has(name)) throw new InvalidPayloadError(`Two ${label} are named "${name}": rename one so configuration can be matched by name.`);
    seen.add(name);
  }
}

export async function emailsOf(ctx: ServiceContext, ids: unknown[]): Promise<Map<string, string | null>> {
  const list = [...new Set(ids.filter((v): v is string => typeof v === 'string'))];
  return new Map(list.length ? (await selectEmailsOf(ctx.db, list)).map((r) => [r.id, r.email]) : []);
}

export async function userIdOf(ctx: ServiceContext, email: unknown, what: string): Promise<string | null> {
  if (email === null || email === undefined) return null;
  const [row] = await selectUsersByEmails(ctx.db, [String(email).toLowerCase()]);
  if (!row) throw new InvalidPayloadError(`${what}: there is no user with the email "${String(email)}" (users are not part of a snapshot: invite them first).`);
  return row.id;
}

// Shape checks of posted rows.
export function need(row: Row, field: string, where: string, type: 'string' | 'boolean' | 'object' | 'array' | 'nullable-string' | 'nullable-object' | 'number'): void {
  const v = row[field];
  const ok = type === 'string' ? typeof v === 'string' && v !== ''
    : type === 'nullable-string' ? v === null || v === undefined || typeof v === 'string'
    : type === 'boolean' ? v === undefined || typeof v === 'boolean'
    : type === 'number' ? v === undefined || v === null || typeof v === 'number'
    : type === 'object' ? isPlainObject(v)
    : type === 'nullable-object' ? v === null || v === undefined || isPlainObject(v)
    : Array.isArray(v);
  if (!ok) {
    const what = { string: 'a non-empty string', 'nullable-string': 'a string or null', boolean: 'true or false', number: 'a number or null', object: 'an object', 'nullable-object': 'an object or null', array: 'an array' }[type];
    throw new InvalidPayloadError(`${where}.${field} must be ${what}.`);
  }
}

/** Only these fields (a typo would otherwise be dropped silently). */
export function onlyFields(row: Row, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(row)) if (!allowed.includes(k)) throw new InvalidPayloadError(`${where} has an unknown property "${k}" (known: ${allowed.join(', ')}).`);
}

export function pick(row: Row, fields: readonly string[]): Row {
  const out: Row = {};
  for (const f of fields) out[f] = row[f] === undefined ? null : row[f];
  return out;
}

/** The fields whose values differ (compared as JSON). */
export function changed(from: Row, to: Row, fields: readonly string[]): string[] {
  return fields.filter((f) => stableJson(from[f] ?? null) !== stableJson(to[f] ?? null));
}
