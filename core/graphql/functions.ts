/** The query language's functions in GraphQL, under Directus' names: `{field}_func` on an object type
 * (`date_functions`, `time_functions`, `datetime_functions` by the field's type; `count_functions` on a to-many
 * field) and in `{c}_filter` (`*_function_filter_operators`). Selecting `published_on_func { year }` reads the
 * REST field `year(published_on)` in the same single query; a filter `published_on_func: {year: {_eq: 2024}}`
 * is the REST filter key `year(published_on)`. */
import {
  getNullableType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLObjectType,
  type GraphQLArgument, type GraphQLFieldConfig, type GraphQLInputFieldConfig, type GraphQLInputType,
} from 'graphql/index.js';
import type { FieldOverview } from '../schema/types.ts';
import type { FieldMeta, GraphqlContext } from './context.ts';
import { NUMBER_OPERATORS } from './filters.ts';

const DATE_PARTS = ['year', 'month', 'week', 'day', 'weekday'] as const;
const TIME_PARTS = ['hour', 'minute', 'second'] as const;

function outputType(name: string, members: readonly string[]): GraphQLObjectType {
  return new GraphQLObjectType({ name, fields: Object.fromEntries(members.map((m) => [m, { type: GraphQLInt }])) });
}

function filterType(name: string, members: readonly string[]): GraphQLInputObjectType {
  return new GraphQLInputObjectType({ name, fields: Object.fromEntries(members.map((m) => [m, { type: NUMBER_OPERATORS }])) });
}

interface Family { members: readonly string[]; output: GraphQLObjectType; filter: GraphQLInputObjectType }

function family(name: string, members: readonly string[]): Family {
  return { members, output: outputType(`${name}_functions`, members), filter: filterType(`${name}_function_filter_operators`, members) };
}

const FAMILY_NAMES = ['date', 'time', 'datetime', 'count'] as const;

/** Type names the functions take (collections may not claim them). */
export const FUNCTION_TYPE_NAMES: readonly string[] = FAMILY_NAMES.flatMap((f) => [`${f}_functions`, `${f}_function_filter_operators`]);

// Built on first use: filters.ts (NUMBER_OPERATORS) imports this module.
let families: Record<(typeof FAMILY_NAMES)[number], Family> | null = null;
function familiesOf(): Record<(typeof FAMILY_NAMES)[number], Family> {
  families ??= {
    date: family('date', DATE_PARTS),
    time: family('time', TIME_PARTS),
    datetime: family('datetime', [...DATE_PARTS, ...TIME_PARTS]),
    count: family('count', ['count']),
  };
  return families;
}

/** The name of a field's function member: `{field}_func`. */
export const funcName = (field: string): string => `${field}_func`;

/** The function family of a column or to-many field; null when no function applies. */
function familyOf(field: FieldOverview, toMany: boolean): Family | null {
  const f = familiesOf();
  if (toMany) return f.count;
  if (field.alias) return null;
  switch (field.type) {
    case 'date': return f.date;
    case 'time': return f.time;
    case 'dateTime': case 'timestamp': return f.datetime;
    default: return null;
  }
}

/** `{field}_func` of an object type: resolves from the REST keys `{field}_{fn}` of the row. */
export function functionField(field: FieldOverview, toMany: boolean): GraphQLFieldConfig<unknown, GraphqlContext> | null {
  const fam = familyOf(field, toMany);
  if (!fam) return null;
  const base = field.field;
  const meta: FieldMeta = { kind: 'fn', field: base };
  return {
    type: fam.output,
    extensions: { svc: meta },
    resolve: (src) => {
      if (src === null || typeof src !== 'object') return null;
      const row = src as Record<string, unknown>;
      return Object.fromEntries(fam.members.map((m) => [m, row[`${base}_${m}`] ?? null]));
    },
  };
}

/** `{field}_func` of a filter input: expanded into `fn(field)` keys by restFilter. */
export function functionFilterField(field: FieldOverview, toMany: boolean): GraphQLInputFieldConfig | null {
  const fam = familyOf(field, toMany);
  return fam ? { type: fam.filter, extensions: { svcFunctionOf: field.field } } : null;
}

/** A GraphQL filter value -> the REST filter: `{x_func: {year: ops}}` becomes `{"year(x)": ops}`, guided by the
 * input type (so a real field whose name ends in `_func` stays itself). */
export function restFilter(value: unknown, type: GraphQLInputType): unknown {
  const t = getNullableType(type);
  if (t instanceof GraphQLList) return Array.isArray(value) ? value.map((v) => restFilter(v, t.ofType as GraphQLInputType)) : value;
  if (!(t instanceof GraphQLInputObjectType) || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const fields = t.getFields();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const f = Object.hasOwn(fields, k) ? fields[k] : undefined;
    const of = f?.extensions?.svcFunctionOf;
    if (typeof of === 'string') {
      if (v === null || typeof v !== 'object') continue;
      for (const [fn, ops] of Object.entries(v)) out[`${fn}(${of})`] = ops;
      continue;
    }
    out[k] = f ? restFilter(v, f.type) : v;
  }
  return out;
}

/** Field arguments with their `filter` rewritten for REST. */
export function restArgs(args: Record<string, unknown>, defs: readonly GraphQLArgument[]): Record<string, unknown> {
  if (args.filter === undefined || args.filter === null) return args;
  const def = defs.find((a) => a.name === 'filter');
  return def ? { ...args, filter: restFilter(args.filter, def.type) } : args;
}
