/** The filter operator registry (core/query/operators.ts), one row per operator and no database: the SQL a
 * comparison compiles to for a sample field and value, the operand kind and GraphQL families, and the in-memory
 * evaluation used by permission validation, pass and fail, with Directus' wording. Every operator of the registry
 * must have a row here, so a new operator cannot land untested. */
import { describe, expect, it } from 'vitest';
import {
  FILTER_OPERATORS, operatorSpec, operatorsWhere, type FilterOperator, type GraphQLFamily, type OperandKind,
} from '../../core/query/operators.ts';
import { compileFilter } from '../../core/query/compile-filter.ts';
import { FUNCTION_OPERATORS } from '../../core/query/functions.ts';
import { SqlBuilder } from '../../core/query/sql-builder.ts';
import type { FieldOverview, FieldType } from '../../core/schema/types.ts';

function field(name: string, type: FieldType, dbType: string): FieldOverview {
  return {
    field: name, type, dbType, nullable: true, defaultValue: null, maxLength: null, numericPrecision: null,
    numericScale: null, isPrimaryKey: false, autoIncrement: false, unique: false, special: [], alias: false,
  };
}

const TITLE = field('title', 'string', 'varchar');
const N = field('n', 'integer', 'int4');

const ALL: GraphQLFamily[] = ['id', 'number', 'date', 'string', 'boolean'];
const LISTED: GraphQLFamily[] = ['id', 'number', 'date', 'string'];
const ORDERED: GraphQLFamily[] = ['number', 'date', 'string'];
const STRING: GraphQLFamily[] = ['string'];

interface Row {
  op: FilterOperator;
  operand: OperandKind;
  graphql: GraphQLFamily[];
  email: boolean;
  /** Field, coerced value, expected SQL and parameters. */
  sql: [FieldOverview, unknown, string, unknown[]];
  /** Payload value, rule operand (resolved), and what the in-memory check says: null = holds. */
  pass: [unknown, unknown];
  fail: [unknown, unknown, string];
}

const ROWS: Row[] = [
  { op: '_eq', operand: 'scalar', graphql: ALL, email: true, sql: [N, 3, 't0."n" = $1::int4', [3]], pass: ['3', 3], fail: [4, 3, 'Value has to be "3".'] },
  { op: '_neq', operand: 'scalar', graphql: ALL, email: true, sql: [N, 3, 't0."n" <> $1::int4', [3]], pass: [4, 3], fail: [3, '3', `Value can't be "3".`] },
  { op: '_in', operand: 'list', graphql: LISTED, email: true, sql: [N, [1, null, 2], 't0."n" = any($1::int4[])', [[1, 2]]], pass: [2, [1, 2]], fail: [5, [1, 2], 'Value has to be one of 1, 2.'] },
  { op: '_nin', operand: 'list', graphql: LISTED, email: true, sql: [N, [1, 2], 'not (t0."n" = any($1::int4[]))', [[1, 2]]], pass: [5, [1, 2]], fail: [1, [1, 2], `Value can't be one of 1, 2.`] },
  { op: '_null', operand: 'flag', graphql: ALL, email: false, sql: [N, true, 't0."n" is null', []], pass: [null, true], fail: [1, true, 'Value has to be null.'] },
  { op: '_nnull', operand: 'flag', graphql: ALL, email: false, sql: [N, true, 't0."n" is not null', []], pass: [1, true], fail: [null, true, `Value can't be null.`] },
  { op: '_lt', operand: 'scalar', graphql: ORDERED, email: false, sql: [N, 5, 't0."n" < $1::int4', [5]], pass: [4, 5], fail: [5, 5, 'Value has to be less than "5".'] },
  { op: '_lte', operand: 'scalar', graphql: ORDERED, email: false, sql: [N, 5, 't0."n" <= $1::int4', [5]], pass: [5, 5], fail: [6, 5, 'Value has to be less than or equal to "5".'] },
  { op: '_gt', operand: 'scalar', graphql: ORDERED, email: false, sql: [N, 5, 't0."n" > $1::int4', [5]], pass: [6, 5], fail: [5, 5, 'Value has to be greater than "5".'] },
  { op: '_gte', operand: 'scalar', graphql: ORDERED, email: false, sql: [N, 5, 't0."n" >= $1::int4', [5]], pass: ['2024-02-01', '2024-01-01'], fail: [4, 5, 'Value has to be greater than or equal to "5".'] },
  { op: '_between', operand: 'pair', graphql: ORDERED, email: false, sql: [N, [1, 9], 't0."n" between $1::int4 and $2::int4', [1, 9]], pass: [9, [1, 9]], fail: [10, [1, 9], 'Value has to be between 1 and 9.'] },
  { op: '_nbetween', operand: 'pair', graphql: ORDERED, email: false, sql: [N, [1, 9], 'not (t0."n" between $1::int4 and $2::int4)', [1, 9]], pass: [0, [1, 9]], fail: [1, [1, 9], `Value can't be between 1 and 9.`] },
  { op: '_contains', operand: 'text', graphql: STRING, email: true, sql: [TITLE, 'a%b', 't0."title" like $1', ['%a\\%b%']], pass: ['xaby', 'ab'], fail: ['xABy', 'ab', 'Value has to contain "ab".'] },
  { op: '_ncontains', operand: 'text', graphql: STRING, email: true, sql: [N, 'ab', 't0."n"::text not like $1', ['%ab%']], pass: ['xABy', 'ab'], fail: ['ab', 'ab', `Value can't contain "ab".`] },
  { op: '_icontains', operand: 'text', graphql: STRING, email: true, sql: [TITLE, 'ab', 't0."title" ilike $1', ['%ab%']], pass: ['xABy', 'ab'], fail: ['xy', 'ab', 'Value has to contain "ab".'] },
  { op: '_nicontains', operand: 'text', graphql: STRING, email: false, sql: [TITLE, 'ab', 't0."title" not ilike $1', ['%ab%']], pass: ['xy', 'ab'], fail: ['AB', 'ab', `Value can't contain "ab".`] },
  { op: '_starts_with', operand: 'text', graphql: STRING, email: true, sql: [TITLE, 'a_', 't0."title" like $1', ['a\\_%']], pass: ['abc', 'ab'], fail: ['Abc', 'ab', 'Value has to start with "ab".'] },
  { op: '_nstarts_with', operand: 'text', graphql: STRING, email: true, sql: [TITLE, 'ab', 't0."title" not like $1', ['ab%']], pass: ['Abc', 'ab'], fail: ['abc', 'ab', `Value can't start with "ab".`] },
  { op: '_istarts_with', operand: 'text', graphql: STRING, email: false, sql: [TITLE, 'ab', 't0."title" ilike $1', ['ab%']], pass: ['ABc', 'ab'], fail: ['cab', 'ab', 'Value has to start with "ab".'] },
  { op: '_nistarts_with', operand: 'text', graphql: STRING, email: false, sql: [TITLE, 'ab', 't0."title" not ilike $1', ['ab%']], pass: ['cab', 'ab'], fail: ['ABc', 'ab', `Value can't start with "ab".`] },
  { op: '_ends_with', operand: 'text', graphql: STRING, email: true, sql: [TITLE, 'ab', 't0."title" like $1', ['%ab']], pass: ['cab', 'ab'], fail: ['cAB', 'ab', 'Value has to end with "ab".'] },
  { op: '_nends_with', operand: 'text', graphql: STRING, email: true, sql: [TITLE, 'ab', 't0."title" not like $1', ['%ab']], pass: ['cAB', 'ab'], fail: ['cab', 'ab', `Value can't end with "ab".`] },
  { op: '_iends_with', operand: 'text', graphql: STRING, email: false, sql: [TITLE, 'ab', 't0."title" ilike $1', ['%ab']], pass: ['cAB', 'ab'], fail: ['abc', 'ab', 'Value has to end with "ab".'] },
  { op: '_niends_with', operand: 'text', graphql: STRING, email: false, sql: [TITLE, 'ab', 't0."title" not ilike $1', ['%ab']], pass: ['abc', 'ab'], fail: ['cAB', 'ab', `Value can't end with "ab".`] },
  { op: '_regex', operand: 'text', graphql: STRING, email: false, sql: [N, '^1', 't0."n"::text ~ $1::text', ['^1']], pass: ['Abc', '^[A-Z]'], fail: ['abc', '^[A-Z]', 'Value has to match ^[A-Z].'] },
  { op: '_empty', operand: 'flag', graphql: STRING, email: false, sql: [TITLE, true, `(t0."title" is null or t0."title" = '')`, []], pass: ['', true], fail: ['x', true, 'Value has to be empty.'] },
  { op: '_nempty', operand: 'flag', graphql: STRING, email: false, sql: [N, true, 'not t0."n" is null', []], pass: [[1], true], fail: [[], true, `Value can't be empty.`] },
];

/** What the planner would hand the compiler: a comparison node, compiled through compileFilter. */
function compile(op: FilterOperator, f: FieldOverview, value: unknown): { sql: string; params: unknown[] } {
  const b = new SqlBuilder();
  const sql = compileFilter(b, 't0', { kind: 'cmp', field: f, op, value });
  return { sql, params: b.params };
}

function check(op: FilterOperator, value: unknown, expected: unknown): string | null {
  return operatorSpec(op).check(value, { expected, list: () => (Array.isArray(expected) ? expected : [expected]) });
}

describe('filter operator registry', () => {
  it('has exactly one row here per operator, in registry order', () => {
    expect(ROWS.map((r) => r.op)).toEqual([...FILTER_OPERATORS]);
  });

  describe.each(ROWS)('$op', (row) => {
    const spec = operatorSpec(row.op);

    it('reads its operand as its kind says and belongs to its GraphQL inputs', () => {
      expect(spec.operand).toBe(row.operand);
      expect([...spec.graphql]).toEqual(row.graphql);
      expect(spec.email).toBe(row.email);
    });

    it('compiles to its SQL with the value bound', () => {
      const [f, value, sql, params] = row.sql;
      expect(compile(row.op, f, value)).toEqual({ sql, params });
    });

    it('holds in memory for a matching value and says why not for another', () => {
      expect(check(row.op, ...row.pass)).toBeNull();
      expect(check(row.op, row.fail[0], row.fail[1])).toBe(row.fail[2]);
    });
  });

  it('compiles the negated and empty forms of the list, null and empty operators', () => {
    expect(compile('_in', N, [null])).toEqual({ sql: 'false', params: [] });
    expect(compile('_nin', N, [])).toEqual({ sql: 'true', params: [] });
    expect(compile('_eq', N, null)).toEqual({ sql: 't0."n" is null', params: [] });
    expect(compile('_neq', N, null)).toEqual({ sql: 't0."n" is not null', params: [] });
    expect(compile('_null', N, false)).toEqual({ sql: 't0."n" is not null', params: [] });
    expect(compile('_nnull', N, false)).toEqual({ sql: 't0."n" is null', params: [] });
    expect(compile('_empty', N, false)).toEqual({ sql: 'not t0."n" is null', params: [] });
    expect(compile('_nempty', TITLE, false)).toEqual({ sql: `(t0."title" is null or t0."title" = '')`, params: [] });
    expect(compile('_eq', field('meta', 'json', 'json'), '{"a":1}')).toEqual({ sql: 't0."meta"::jsonb = $1::jsonb', params: ['{"a":1}'] });
  });

  it('evaluates a false flag as the opposite test', () => {
    expect(check('_null', 1, false)).toBeNull();
    expect(check('_null', null, false)).toBe(`Value can't be null.`);
    expect(check('_nnull', 1, false)).toBe('Value has to be null.');
    expect(check('_empty', 'x', 'false')).toBeNull();
    expect(check('_nempty', 'x', false)).toBe('Value has to be empty.');
    expect(check('_regex', 'x', '(')).toBe('Invalid regular expression.');
  });

  it('refuses unbounded or over-long regular expressions before any SQL', () => {
    const refuse = operatorSpec('_regex').refuse!;
    expect(refuse('^[A-Z]')).toBeNull();
    expect(refuse('a'.repeat(501))).toBe('is longer than 500 characters');
    expect(refuse('(a)\\1')).toMatch(/backreference/);
    expect(operatorsWhere((s) => s.refuse !== undefined)).toEqual(['_regex']);
  });

  it('gives query functions the comparison operators only', () => {
    expect([...FUNCTION_OPERATORS]).toEqual(['_eq', '_neq', '_in', '_nin', '_null', '_nnull', '_lt', '_lte', '_gt', '_gte', '_between', '_nbetween']);
  });
});
