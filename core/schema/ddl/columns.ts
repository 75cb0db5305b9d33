/** Field payloads (`{field, type, meta, schema}`) checked and turned into column definitions. Values never
 * reach SQL unchecked: defaults are validated for the field type and quoted by Postgres' quote_literal. */
import { run, type Executor } from '../../db/database.ts';
import { InvalidPayloadError } from '../../errors.ts';
import { columnTypeFor, implicitSpecial } from '../field-types.ts';
import { FIELD_TYPES, type FieldType } from '../types.ts';
import { isPlainObject, requireIdentifier } from './names.ts';
import { requireMetaObject, splitSpecial } from './meta.ts';
import { isUuid } from '../../uuid.ts';

export interface FieldSchemaInput {
  is_primary_key?: boolean;
  has_auto_increment?: boolean;
  is_nullable?: boolean;
  /** undefined = not given; null = no default. */
  default_value?: unknown;
  max_length?: number | null;
  is_unique?: boolean;
  /** A b-tree index on the column (a unique or primary key column has one already). */
  is_indexed?: boolean;
  numeric_precision?: number | null;
  numeric_scale?: number | null;
}

export interface FieldInput {
  field: string;
  type: FieldType;
  meta: Record<string, unknown> | null;
  /** null when the payload sent `schema: null` or nothing. */
  schema: FieldSchemaInput | null;
}

export const PRIMARY_KEY_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger', 'uuid', 'string']);
const ALIAS_SPECIAL_DEFAULT = ['alias', 'no-data'];
const ALIAS_SPECIALS = new Set(['alias', 'o2m', 'm2m', 'm2a', 'files', 'translations', 'group', 'no-data']);

export function parseFieldType(value: unknown): FieldType {
  if (value === undefined || value === null) throw new InvalidPayloadError('"type" is required.');
  if (typeof value !== 'string' || !(FIELD_TYPES as readonly string[]).includes(value)) {
    throw new InvalidPayloadError(`"type" must be one of ${FIELD_TYPES.join(', ')}.`);
  }
  return value as FieldType;
}

function bool(obj: Record<string, unknown>, key: string): boolean | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new InvalidPayloadError(`"schema.${key}" must be a boolean.`);
  return v;
}

function int(obj: Record<string, unknown>, key: string, min: number, max: number): number | null | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new InvalidPayloadError(`"schema.${key}" must be an integer between ${min} and ${max}.`);
  }
  return v;
}

export function parseFieldSchema(value: unknown): FieldSchemaInput | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) throw new InvalidPayloadError('"schema" must be an object or null.');
  const out: FieldSchemaInput = {
    is_primary_key: bool(value, 'is_primary_key'),
    has_auto_increment: bool(value, 'has_auto_increment'),
    is_nullable: bool(value, 'is_nullable'),
    is_unique: bool(value, 'is_unique'),
    is_indexed: bool(value, 'is_indexed'),
    max_length: int(value, 'max_length', 1, 10_485_760),
    numeric_precision: int(value, 'numeric_precision', 1, 1000),
    numeric_scale: int(value, 'numeric_scale', 0, 1000),
  };
  if ('default_value' in value) out.default_value = value.default_value;
  return out;
}

export function parseFieldInput(raw: unknown): FieldInput {
  if (!isPlainObject(raw)) throw new InvalidPayloadError('A field must be an object.');
  const field = requireIdentifier(raw.field, 'field');
  const type = parseFieldType(raw.type);
  const meta = requireMetaObject(raw.meta);
  const schema = type === 'alias' ? null : parseFieldSchema(raw.schema);
  if (schema?.has_auto_increment && type !== 'integer' && type !== 'bigInteger') {
    throw new InvalidPayloadError('Only integer and bigInteger fields can auto-increment.');
  }
  if (schema?.is_primary_key && !PRIMARY_KEY_TYPES.has(type)) {
    throw new InvalidPayloadError(`A primary key must be of type ${[...PRIMARY_KEY_TYPES].join(', ')}.`);
  }
  if (schema?.numeric_scale != null && schema.numeric_precision != null && schema.numeric_scale > schema.numeric_precision) {
    throw new InvalidPayloadError('"schema.numeric_scale" can not exceed "schema.numeric_precision".');
  }
  return { field, type, meta, schema };
}

/** The special flags to store: what the caller sent plus what the type implies. */
export function specialFor(type: FieldType, requested: unknown): string[] {
  const list = splitSpecial(requested);
  if (type === 'alias') {
    if (!list.some((s) => ALIAS_SPECIALS.has(s))) list.push(...ALIAS_SPECIAL_DEFAULT.filter((s) => !list.includes(s)));
    return list;
  }
  for (const s of implicitSpecial(type)) if (!list.includes(s)) list.push(s);
  return list;
}

/** Drops the implicit specials of the old type (a type change). */
export function withoutImplicit(type: FieldType, special: string[]): string[] {
  const implied = new Set(implicitSpecial(type));
  return special.filter((s) => !implied.has(s));
}

export function columnType(type: FieldType, schema: FieldSchemaInput | null): string {
  return columnTypeFor(type, {
    maxLength: schema?.max_length ?? null,
    precision: schema?.numeric_precision ?? null,
    scale: schema?.numeric_scale ?? null,
    autoIncrement: schema?.has_auto_increment ?? false,
  });
}

/** The type without serial pseudo-types (for ALTER COLUMN TYPE). */
export function plainType(colType: string): string {
  return colType === 'serial' ? 'integer' : colType === 'bigserial' ? 'bigint' : colType;
}

/** The type without length/precision: casts to it never truncate or round silently, the column's own
 * type modifier then checks the value (a too long string is an error, not cut). */
export function baseType(colType: string): string {
  return plainType(colType).replace(/\s*\(.*\)$/, '');
}

const NOW = new Set(['CURRENT_TIMESTAMP', 'NOW()', 'now()', 'current_timestamp']);

async function quote(ex: Executor, text: string): Promise<string> {
  const [row] = await run<{ lit: string }>(ex, 'select quote_literal($1::text) as lit', [text]);
  return row.lit;
}

/** A SQL default expression for value, or null for "no default". Throws INVALID_PAYLOAD for a value the
 * type can't hold; values Postgres must parse (dates) are cast at DDL time and fail there with a 400. */
export async function defaultExpression(ex: Executor, type: FieldType, colType: string, value: unknown): Promise<string | null> {
  if (value === null || value === undefined) return null;
  const invalid = () => new InvalidPayloadError(`Invalid default value for a field of type "${type}".`);
  const cast = baseType(colType);
  switch (type) {
    case 'integer': case 'bigInteger': {
      const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
      if (!/^-?\d{1,19}$/.test(text)) throw invalid();
      return `${text}::${cast}`;
    }
    case 'float': case 'decimal': {
      const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
      if (!/^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text)) throw invalid();
      return `${text}::${cast}`;
    }
    case 'boolean':
      if (value === true || value === 'true') return 'true';
      if (value === false || value === 'false') return 'false';
      throw invalid();
    case 'uuid':
      // What GET /fields reports for a generated uuid key: a new uuid per row.
      if (value === 'gen_random_uuid()') return 'gen_random_uuid()';
      if (!isUuid(value)) throw invalid();
      return `${await quote(ex, value)}::uuid`;
    case 'json':
      return `${await quote(ex, JSON.stringify(value))}::json`;
    case 'date': case 'time': case 'timestamp': case 'dateTime':
      if (typeof value !== 'string') throw invalid();
      if (NOW.has(value)) return 'CURRENT_TIMESTAMP';
      return `${await quote(ex, value)}::${cast}`;
    case 'csv':
      if (Array.isArray(value)) return `${await quote(ex, value.map(String).join(','))}::text`;
      if (typeof value !== 'string') throw invalid();
      return `${await quote(ex, value)}::text`;
    case 'string': case 'text': case 'hash':
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw invalid();
      return `${await quote(ex, String(value))}::${cast}`;
    case 'alias':
      throw invalid();
  }
}

/** `<type> [primary key] [not null] [default ...] [unique]` for CREATE TABLE / ADD COLUMN. */
export async function columnDefinition(ex: Executor, input: FieldInput): Promise<string> {
  const s = input.schema;
  const colType = columnType(input.type, s);
  const parts = [colType];
  if (s?.is_primary_key) parts.push('primary key');
  else if (s?.is_nullable === false) parts.push('not null');
  let def = await defaultExpression(ex, input.type, colType, s?.default_value);
  if (def === null && s?.is_primary_key && input.type === 'uuid') def = 'gen_random_uuid()';
  if (def !== null && !s?.has_auto_increment) parts.push(`default ${def}`);
  if (s?.is_unique && !s.is_primary_key) parts.push('unique');
  return parts.join(' ');
}
