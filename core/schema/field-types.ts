/** Mapping between the API's field types and Postgres column types. */
import type { FieldType } from './types.ts';

/** Field type of a column, from its Postgres type and the field's `special` flags. */
export function fieldTypeOf(udtName: string, special: string[]): FieldType {
  if (special.includes('cast-csv')) return 'csv';
  if (special.includes('hash')) return 'hash';
  switch (udtName) {
    case 'varchar': case 'bpchar': case 'char': case 'name': case 'citext': return 'string';
    case 'text': return 'text';
    case 'int2': case 'int4': return 'integer';
    case 'int8': return 'bigInteger';
    case 'float4': case 'float8': return 'float';
    case 'numeric': return 'decimal';
    case 'bool': return 'boolean';
    case 'date': return 'date';
    case 'time': case 'timetz': return 'time';
    case 'timestamptz': return 'timestamp';
    case 'timestamp': return 'dateTime';
    case 'uuid': return 'uuid';
    case 'json': case 'jsonb': return 'json';
    default: return 'text';
  }
}

/** Column type for a new field. */
export function columnTypeFor(type: FieldType, opts: { maxLength?: number | null; precision?: number | null; scale?: number | null; autoIncrement?: boolean }): string {
  switch (type) {
    case 'string': return `varchar(${opts.maxLength ?? 255})`;
    case 'hash': return 'varchar(255)';
    case 'text': case 'csv': return 'text';
    case 'integer': return opts.autoIncrement ? 'serial' : 'integer';
    case 'bigInteger': return opts.autoIncrement ? 'bigserial' : 'bigint';
    case 'float': return 'double precision';
    case 'decimal': return `numeric(${opts.precision ?? 10}, ${opts.scale ?? 5})`;
    case 'boolean': return 'boolean';
    case 'date': return 'date';
    case 'time': return 'time';
    case 'timestamp': return 'timestamptz';
    case 'dateTime': return 'timestamp';
    case 'uuid': return 'uuid';
    case 'json': return 'json';
    case 'alias': throw new Error('alias fields have no column');
  }
}

/** Specials a field of this type carries implicitly (as Directus stores them). */
export function implicitSpecial(type: FieldType): string[] {
  switch (type) {
    case 'csv': return ['cast-csv'];
    case 'hash': return ['hash'];
    case 'json': return ['cast-json'];
    case 'boolean': return ['cast-boolean'];
    default: return [];
  }
}

export const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger', 'float', 'decimal']);
export const TEXT_TYPES: ReadonlySet<FieldType> = new Set(['string', 'text', 'csv', 'hash']);
export const DATE_TYPES: ReadonlySet<FieldType> = new Set(['date', 'time', 'timestamp', 'dateTime']);
