/** Reads the schema overview from the database catalogue and the svc_ metadata tables. */
import { run, type Executor } from '../db/database.ts';
import { fieldTypeOf } from './field-types.ts';
import type { CollectionOverview, FieldOverview, Relation, RelationMeta, SchemaOverview } from './types.ts';

interface ColumnRow {
  table_name: string; column_name: string; udt_name: string; is_nullable: boolean; column_default: string | null;
  max_length: number | null; numeric_precision: number | null; numeric_scale: number | null; is_identity: boolean;
  is_primary: boolean; is_unique: boolean; is_indexed: boolean;
}

const COLUMNS_SQL = `
select c.relname as table_name, a.attname as column_name, t.typname as udt_name, not a.attnotnull as is_nullable,
  pg_get_expr(d.adbin, d.adrelid) as column_default,
  case when a.atttypmod > 4 and t.typname in ('varchar', 'bpchar') then a.atttypmod - 4 end as max_length,
  case when t.typname = 'numeric' and a.atttypmod > 4 then ((a.atttypmod - 4) >> 16) & 65535 end as numeric_precision,
  case when t.typname = 'numeric' and a.atttypmod > 4 then (a.atttypmod - 4) & 65535 end as numeric_scale,
  a.attidentity <> '' as is_identity,
  exists (select 1 from pg_index i where i.indrelid = c.oid and i.indisprimary and i.indkey[0] = a.attnum) as is_primary,
  exists (select 1 from pg_index i where i.indrelid = c.oid and i.indisunique and not i.indisprimary and i.indisvalid
          and i.indnkeyatts = 1 and i.indkey[0] = a.attnum and i.indpred is null) as is_unique,
  exists (select 1 from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam and am.amname = 'btree'
          where i.indrelid = c.oid and i.indisvalid and i.indnkeyatts = 1 and i.indkey[0] = a.attnum
          and i.indpred is null and i.indexprs is null) as is_indexed
from pg_class c
join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
join pg_type t on t.oid = a.atttypid
left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
where c.relkind in ('r', 'p') and c.relname not in ('svc_migrations', 'svc_migrations_lock')
order by c.relname, a.attnum`;

const FOREIGN_KEYS_SQL = `
select c.conname as constraint_name, t.relname as table_name, a.attname as column_name, ft.relname as foreign_table,
  c.confdeltype as on_delete, c.confupdtype as on_update
from pg_constraint c
join pg_class t on t.oid = c.conrelid
join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
join pg_class ft on ft.oid = c.confrelid
join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
where c.contype = 'f' and array_length(c.conkey, 1) = 1`;

const FK_ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

interface FkRow { constraint_name: string; table_name: string; column_name: string; foreign_table: string; on_delete: string; on_update: string }

function parseDefault(raw: string | null): unknown {
  if (raw === null) return null;
  if (raw.startsWith('nextval(')) return null;
  const str = /^'((?:[^']|'')*)'(::[\w\s."]+(?:\(\d+(?:,\s*\d+)?\))?)?$/.exec(raw);
  if (str) {
    const value = str[1].replace(/''/g, "'");
    if (str[2] && /json/.test(str[2])) {
      try { return JSON.parse(value); } catch { return value; }
    }
    return value;
  }
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  const num = /^\(?(-?\d+(?:\.\d+)?)\)?::(numeric|integer|bigint|double precision|real)(?:\(\d+(?:,\s*\d+)?\))?$/.exec(raw);
  if (num) return Number(num[1]);
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^null(::.*)?$/i.test(raw)) return null;
  if (/^(now\(\)|CURRENT_TIMESTAMP)$/i.test(raw)) return 'CURRENT_TIMESTAMP';
  return raw;
}

function splitSpecial(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.map(String);
  if (typeof raw !== 'string' || raw === '') return [];
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

/** Specials of system fields without a svc_fields row, as Directus' system field data: secrets are hashed
 * and/or concealed (read back as "**********"). */
const SYSTEM_SPECIALS: Record<string, string[]> = {
  'svc_users.password': ['hash', 'conceal'],
  'svc_users.token': ['conceal'],
  'svc_users.tfa_secret': ['conceal'],
  // The encrypted copy of a direct mail as sent (migrations/0007_notify_sealed_content.ts).
  'svc_notify_logs.content_sealed': ['conceal'],
};

/** System collections record their changes like user collections (as Directus does), except the logs
 * themselves and short-lived or internal state. */
const UNTRACKED_SYSTEM = new Set(['svc_activity', 'svc_revisions', 'svc_sessions', 'svc_notify_delivery_events', 'svc_notify_logs']);

/** System tables that are no collection at all, for no API to read: the action-event outbox holds write payloads
 * (a user's static token among them) on their way to the Queue; core/events/outbox.ts alone reads it. */
const INTERNAL_TABLES = new Set(['svc_event_outbox']);

function systemAccountability(table: string): CollectionOverview['accountability'] {
  return UNTRACKED_SYSTEM.has(table) ? null : 'all';
}

/** The to-many aliases of system collections, as Directus' system relations declare them: the foreign key
 * (table.column) and the alias it gets on the referenced collection. Deselected children are deleted (a
 * permission or an access row without its policy or role means nothing). */
const SYSTEM_TO_MANY: Record<string, Pick<RelationMeta, 'one_field' | 'junction_field' | 'sort_field' | 'one_deselect_action'>> = {
  'svc_permissions.policy': { one_field: 'permissions', junction_field: null, sort_field: null, one_deselect_action: 'delete' },
  'svc_access.role': { one_field: 'policies', junction_field: 'policy', sort_field: 'sort', one_deselect_action: 'delete' },
  'svc_revisions.activity': { one_field: 'revisions', junction_field: null, sort_field: null, one_deselect_action: 'nullify' },
};

function aliasField(field: string, special: string[]): FieldOverview {
  return {
    field, type: 'alias', dbType: null, nullable: true, defaultValue: null, maxLength: null,
    numericPrecision: null, numericScale: null, isPrimaryKey: false, autoIncrement: false, unique: false,
    special, alias: true,
  };
}

const ALIAS_SPECIALS = new Set(['alias', 'o2m', 'm2m', 'm2a', 'files', 'translations', 'group', 'no-data']);

export async function loadSchemaOverview(ex: Executor, version: string): Promise<SchemaOverview> {
  const [columns, fks, collectionRows, fieldRows, relationRows] = await Promise.all([
    run<ColumnRow>(ex, COLUMNS_SQL),
    run<FkRow>(ex, FOREIGN_KEYS_SQL),
    run<Record<string, any>>(ex, 'select collection, singleton, accountability, sort_field, search_index from svc_collections'),
    run<Record<string, any>>(ex, 'select collection, field, special, validation, validation_message from svc_fields'),
    run<Record<string, any>>(ex, 'select * from svc_relations'),
  ]);

  const meta = new Map(collectionRows.map((r) => [r.collection as string, r]));
  const fieldMeta = new Map(fieldRows.map((r) => [`${r.collection}.${r.field}`, r]));
  const collections: Record<string, CollectionOverview> = {};

  for (const col of columns) {
    const isSystem = col.table_name.startsWith('svc_');
    if (!isSystem && !meta.has(col.table_name)) continue; // tables we do not manage stay invisible
    if (INTERNAL_TABLES.has(col.table_name)) continue;
    let collection = collections[col.table_name];
    if (!collection) {
      const m = meta.get(col.table_name);
      collection = collections[col.table_name] = {
        collection: col.table_name,
        primary: null,
        singleton: Boolean(m?.singleton),
        folder: false,
        system: isSystem,
        accountability: isSystem ? systemAccountability(col.table_name) : ((m?.accountability ?? null) as CollectionOverview['accountability']),
        sortField: (m?.sort_field as string | null) ?? null,
        searchIndex: m?.search_index === true,
        fields: {},
      };
    }
    const fieldKey = `${col.table_name}.${col.column_name}`;
    const special = fieldMeta.has(fieldKey) ? splitSpecial(fieldMeta.get(fieldKey)?.special) : (SYSTEM_SPECIALS[fieldKey] ?? []);
    const field: FieldOverview = {
      field: col.column_name,
      type: fieldTypeOf(col.udt_name, special),
      dbType: col.udt_name,
      nullable: col.is_nullable,
      defaultValue: parseDefault(col.column_default),
      maxLength: col.max_length,
      numericPrecision: col.numeric_precision,
      numericScale: col.numeric_scale,
      isPrimaryKey: col.is_primary,
      autoIncrement: col.is_identity || (col.column_default?.startsWith('nextval(') ?? false),
      unique: col.is_unique || col.is_primary,
      indexed: col.is_indexed,
      special,
      alias: false,
    };
    if (field.isPrimaryKey && collection.primary === null) collection.primary = field.field;
    collection.fields[field.field] = field;
  }

  for (const m of collectionRows) {
    if (!collections[m.collection]) {
      collections[m.collection] = {
        collection: m.collection, primary: null, singleton: false, folder: true, system: false,
        accountability: null, sortField: null, fields: {},
      };
    }
  }

  for (const f of fieldRows) {
    const collection = collections[f.collection];
    if (!collection || collection.fields[f.field]) continue;
    const special = splitSpecial(f.special);
    if (!special.some((s) => ALIAS_SPECIALS.has(s))) continue;
    collection.fields[f.field] = aliasField(f.field, special);
  }

  // Field validation rules (meta.validation): a write must pass all of them, as in Directus' items service.
  for (const f of fieldRows) {
    const collection = collections[f.collection];
    const rule = typeof f.validation === 'string' ? safeJson(f.validation) : f.validation;
    if (!collection || collection.system || !rule || typeof rule !== 'object' || Array.isArray(rule) || Object.keys(rule).length === 0) continue;
    const current = collection.fieldValidation ?? { rule: { _and: [] as unknown[] }, messages: {} };
    (current.rule._and as unknown[]).push(rule);
    if (typeof f.validation_message === 'string' && f.validation_message) current.messages[f.field] = f.validation_message;
    collection.fieldValidation = current;
  }

  const fkByColumn = new Map(fks.map((fk) => [`${fk.table_name}.${fk.column_name}`, fk]));
  const relations: Relation[] = [];
  const declared = new Set<string>();
  for (const r of relationRows) {
    declared.add(`${r.many_collection}.${r.many_field}`);
    const fk = fkByColumn.get(`${r.many_collection}.${r.many_field}`);
    relations.push({
      collection: r.many_collection,
      field: r.many_field,
      related_collection: r.one_collection ?? null,
      schema: fk ? { on_delete: FK_ACTIONS[fk.on_delete], on_update: FK_ACTIONS[fk.on_update], constraint_name: fk.constraint_name } : null,
      meta: {
        id: r.id,
        many_collection: r.many_collection,
        many_field: r.many_field,
        one_collection: r.one_collection ?? null,
        one_field: r.one_field ?? null,
        one_collection_field: r.one_collection_field ?? null,
        one_allowed_collections: r.one_allowed_collections ? String(r.one_allowed_collections).split(',') : null,
        junction_field: r.junction_field ?? null,
        sort_field: r.sort_field ?? null,
        one_deselect_action: r.one_deselect_action === 'delete' ? 'delete' : 'nullify',
      },
    });
  }
  // System tables declare their many-to-one links as foreign keys only; a few also have a to-many alias.
  for (const fk of fks) {
    if (!fk.table_name.startsWith('svc_') || declared.has(`${fk.table_name}.${fk.column_name}`)) continue;
    const toMany = SYSTEM_TO_MANY[`${fk.table_name}.${fk.column_name}`];
    const one = collections[fk.foreign_table];
    if (toMany?.one_field && one && !one.fields[toMany.one_field]) one.fields[toMany.one_field] = aliasField(toMany.one_field, ['o2m']);
    relations.push({
      collection: fk.table_name,
      field: fk.column_name,
      related_collection: fk.foreign_table,
      schema: { on_delete: FK_ACTIONS[fk.on_delete], on_update: FK_ACTIONS[fk.on_update], constraint_name: fk.constraint_name },
      meta: {
        id: null, many_collection: fk.table_name, many_field: fk.column_name, one_collection: fk.foreign_table,
        one_field: toMany?.one_field ?? null, one_collection_field: null, one_allowed_collections: null,
        junction_field: toMany?.junction_field ?? null, sort_field: toMany?.sort_field ?? null,
        one_deselect_action: toMany?.one_deselect_action ?? 'nullify',
      },
    });
  }

  return { version, collections, relations };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
