/** The filter operators of the query language (SPEC.md > Filter rules), one record each: how its operand is read,
 * the SQL it compiles to, how it is evaluated in memory (permission `validation`) with Directus' wording when it
 * fails, which GraphQL operator inputs carry it, and whether it applies to query functions and to the registration
 * email filter. This is the only list of operators: the planner, filter-values, compile-filter, access validation,
 * GraphQL, workflow definitions and the email filter all read it, so a new operator is one record here. */
import { MAX_REGEX_LENGTH, regexRefusal } from './regex-limits.ts';
import { likeEscape, type SqlBuilder } from './sql-builder.ts';
import { isEmpty, order, same, text, truthy } from './value-compare.ts';

/** How the operand is read (filter-values.ts) and typed in GraphQL (graphql/filters.ts):
 * scalar: one value of the field's type; list: any number of them; pair: exactly two; flag: a boolean;
 * text: one string (LIKE patterns, regular expressions). */
export type OperandKind = 'scalar' | 'list' | 'pair' | 'flag' | 'text';

/** The GraphQL operator inputs (`string_filter_operators`, ...) that carry an operator. */
export type GraphQLFamily = 'id' | 'number' | 'date' | 'string' | 'boolean';

/** What the SQL of one comparison is built from. */
export interface CompareSql {
  b: SqlBuilder;
  /** The compared expression: the column (`::jsonb` for a json column) or a function of the row. */
  expr: string;
  /** The column as text: LIKE and regular expressions match text whatever the column's type. */
  text: string;
  /** The Postgres type a bound value is cast to. */
  cast: string;
  /** The field has a text type, where `''` counts as empty. */
  textType: boolean;
  /** The operand, coerced by filter-values.ts. */
  value: unknown;
}

/** A rule's operand, in memory. */
export interface Operand {
  /** With dynamic variables resolved. */
  expected: unknown;
  /** As a list: a comma string split, list variables ($CURRENT_ROLES) spread. */
  list(): unknown[];
}

export interface OperatorSpec {
  operand: OperandKind;
  /** Why a text operand is refused (a phrase to follow `"_op" on field "x"`), or null when it is accepted. */
  refuse?: (value: string) => string | null;
  sql(s: CompareSql): string;
  /** Null when `value` satisfies the operator, else the rule in Directus' wording ("Value has to be ..."). */
  check(value: unknown, operand: Operand): string | null;
  graphql: readonly GraphQLFamily[];
  /** Compares the integer a query function returns (`year(date_created)`). */
  functions: boolean;
  /** Understood by settings.public_registration_email_filter (others there allow nobody). */
  email: boolean;
}

const EVERY: readonly GraphQLFamily[] = ['id', 'number', 'date', 'string', 'boolean'];
const LISTED: readonly GraphQLFamily[] = ['id', 'number', 'date', 'string'];
const ORDERED: readonly GraphQLFamily[] = ['number', 'date', 'string'];
const STRING: readonly GraphQLFamily[] = ['string'];

function ordering(sqlOp: string, word: string, holds: (o: number) => boolean): OperatorSpec {
  return {
    operand: 'scalar', graphql: ORDERED, functions: true, email: false,
    sql: (s) => `${s.expr} ${sqlOp} ${s.b.param(s.value, s.cast)}`,
    check: (value, { expected }) => {
      const o = order(value, expected);
      return o !== null && holds(o) ? null : `Value has to be ${word} "${text(expected)}".`;
    },
  };
}

function membership(negated: boolean): OperatorSpec {
  return {
    operand: 'list', graphql: LISTED, functions: true, email: true,
    sql: (s) => {
      // `= any(null)` is never true, so nulls are left out of the array; an empty list matches nothing.
      const items = (s.value as unknown[]).filter((v) => v !== null);
      if (items.length === 0) return negated ? 'true' : 'false';
      const any = `${s.expr} = any(${s.b.param(items, `${s.cast}[]`)})`;
      return negated ? `not (${any})` : any;
    },
    check: (value, operand) => {
      const values = operand.list();
      const found = values.some((v) => same(value, v));
      if (found !== negated) return null;
      return `Value ${negated ? "can't" : 'has to'} be one of ${values.map(text).join(', ')}.`;
    },
  };
}

/** `_null` and `_nnull`: a true operand asks for the test, a false one for its opposite. */
function nullness(negated: boolean): OperatorSpec {
  return {
    operand: 'flag', graphql: EVERY, functions: true, email: false,
    sql: (s) => {
      const wantsNull = Boolean(s.value) !== negated;
      return wantsNull ? `${s.expr} is null` : `${s.expr} is not null`;
    },
    check: (value, { expected }) => {
      const wanted = truthy(expected);
      const holds = negated ? value !== null : value === null;
      if (holds === wanted) return null;
      return wanted !== negated ? 'Value has to be null.' : "Value can't be null.";
    },
  };
}

/** `_empty` and `_nempty`: null, and on text fields also `''` (in memory also `[]`). */
function emptiness(negated: boolean): OperatorSpec {
  return {
    operand: 'flag', graphql: STRING, functions: false, email: false,
    sql: (s) => {
      const empty = s.textType ? `(${s.expr} is null or ${s.expr} = '')` : `${s.expr} is null`;
      const wantsEmpty = Boolean(s.value) !== negated;
      return wantsEmpty ? empty : `not ${empty}`;
    },
    check: (value, { expected }) => {
      const wanted = truthy(expected);
      const holds = negated ? !isEmpty(value) : isEmpty(value);
      if (holds === wanted) return null;
      return wanted !== negated ? 'Value has to be empty.' : "Value can't be empty.";
    },
  };
}

function range(negated: boolean): OperatorSpec {
  return {
    operand: 'pair', graphql: ORDERED, functions: true, email: false,
    sql: (s) => {
      const [lo, hi] = s.value as unknown[];
      const expr = `${s.expr} between ${s.b.param(lo, s.cast)} and ${s.b.param(hi, s.cast)}`;
      return negated ? `not (${expr})` : expr;
    },
    check: (value, operand) => {
      const [low, high] = operand.list();
      const a = order(value, low);
      const b = order(value, high);
      const inside = a !== null && b !== null && a >= 0 && b <= 0;
      if (inside !== negated) return null;
      return `Value ${negated ? "can't" : 'has to'} be between ${text(low)} and ${text(high)}.`;
    },
  };
}

type TextTest = 'contains' | 'starts' | 'ends';
const TEXT_WORDS: Record<TextTest, [string, string]> = {
  contains: ['has to contain', "can't contain"],
  starts: ['has to start with', "can't start with"],
  ends: ['has to end with', "can't end with"],
};

/** The LIKE family: `[n][i]{contains,starts_with,ends_with}`. The user's text is taken literally. */
function like(test: TextTest, negated: boolean, caseless: boolean, email: boolean): OperatorSpec {
  const sqlOp = `${negated ? 'not ' : ''}${caseless ? 'ilike' : 'like'}`;
  const pattern = (v: string): string => (test === 'contains' ? `%${v}%` : test === 'starts' ? `${v}%` : `%${v}`);
  return {
    operand: 'text', graphql: STRING, functions: false, email,
    sql: (s) => `${s.text} ${sqlOp} ${s.b.param(pattern(likeEscape(s.value as string)))}`,
    check: (value, { expected }) => {
      const raw = typeof value === 'string' ? value : value === null ? '' : text(value);
      const needle = text(expected);
      const [haystack, wanted] = caseless ? [raw.toLowerCase(), needle.toLowerCase()] : [raw, needle];
      const hit = test === 'contains' ? haystack.includes(wanted) : test === 'starts' ? haystack.startsWith(wanted) : haystack.endsWith(wanted);
      return hit !== negated ? null : `Value ${TEXT_WORDS[test][negated ? 1 : 0]} "${needle}".`;
    },
  };
}

// The order is that of the GraphQL operator inputs' fields.
const OPERATORS = {
  _eq: {
    operand: 'scalar', graphql: EVERY, functions: true, email: true,
    sql: (s) => (s.value === null ? `${s.expr} is null` : `${s.expr} = ${s.b.param(s.value, s.cast)}`),
    check: (value, { expected }) => (same(value, expected) ? null : `Value has to be "${text(expected)}".`),
  },
  _neq: {
    operand: 'scalar', graphql: EVERY, functions: true, email: true,
    sql: (s) => (s.value === null ? `${s.expr} is not null` : `${s.expr} <> ${s.b.param(s.value, s.cast)}`),
    check: (value, { expected }) => (!same(value, expected) ? null : `Value can't be "${text(expected)}".`),
  },
  _in: membership(false),
  _nin: membership(true),
  _null: nullness(false),
  _nnull: nullness(true),
  _lt: ordering('<', 'less than', (o) => o < 0),
  _lte: ordering('<=', 'less than or equal to', (o) => o <= 0),
  _gt: ordering('>', 'greater than', (o) => o > 0),
  _gte: ordering('>=', 'greater than or equal to', (o) => o >= 0),
  _between: range(false),
  _nbetween: range(true),
  _contains: like('contains', false, false, true),
  _ncontains: like('contains', true, false, true),
  _icontains: like('contains', false, true, true),
  _nicontains: like('contains', true, true, false),
  _starts_with: like('starts', false, false, true),
  _nstarts_with: like('starts', true, false, true),
  _istarts_with: like('starts', false, true, false),
  _nistarts_with: like('starts', true, true, false),
  _ends_with: like('ends', false, false, true),
  _nends_with: like('ends', true, false, true),
  _iends_with: like('ends', false, true, false),
  _niends_with: like('ends', true, true, false),
  _regex: {
    operand: 'text', graphql: STRING, functions: false, email: false,
    // Forms whose matching or compiling cost has no useful bound are refused before any SQL (regex-limits.ts).
    refuse: (pattern) => (pattern.length > MAX_REGEX_LENGTH ? `is longer than ${MAX_REGEX_LENGTH} characters` : regexRefusal(pattern)),
    sql: (s) => `${s.text} ~ ${s.b.param(s.value, 'text')}`,
    check: (value, { expected }) => {
      let pattern: RegExp;
      try {
        pattern = new RegExp(text(expected));
      } catch {
        return 'Invalid regular expression.';
      }
      return typeof value === 'string' && pattern.test(value) ? null : `Value has to match ${text(expected)}.`;
    },
  },
  _empty: emptiness(false),
  _nempty: emptiness(true),
} satisfies Record<string, OperatorSpec>;

export type FilterOperator = keyof typeof OPERATORS;

export const FILTER_OPERATORS: ReadonlySet<string> = new Set(Object.keys(OPERATORS));

export function isFilterOperator(op: string): op is FilterOperator {
  return FILTER_OPERATORS.has(op);
}

export function operatorSpec(op: FilterOperator): OperatorSpec {
  return OPERATORS[op];
}

/** The operators whose record satisfies `test`, in registry order. */
export function operatorsWhere(test: (spec: OperatorSpec) => boolean): FilterOperator[] {
  return (Object.keys(OPERATORS) as FilterOperator[]).filter((op) => test(OPERATORS[op]));
}
