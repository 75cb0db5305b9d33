/** Permission `validation` (SPEC.md > svc_permissions): the payload of a create or update, presets applied,
 * must match the rule. Same filter syntax as queries, evaluated in JS over the payload values. As in Directus,
 * a field the payload does not carry is not checked; a nested object is checked against a nested rule. */
import type { Accountability } from './accountability.ts';
import { ErrorList, InvalidPayloadError } from '../errors.ts';
import { resolveVariable } from '../query/filter-values.ts';
import { FILTER_OPERATORS, type Filter } from '../query/types.ts';

interface Failure { field: string; type: string; message: string }

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown, acc: Accountability): unknown[] {
  const resolved = resolveVariable(value, acc);
  const items = Array.isArray(resolved) ? resolved : typeof resolved === 'string' ? resolved.split(',') : [resolved];
  return items.flatMap((v) => {
    const r = resolveVariable(v, acc);
    return Array.isArray(r) ? r : [r];
  });
}

function comparable(value: unknown): number | string | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    if (value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
    const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
    return Number.isNaN(time) ? value : time;
  }
  return null;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  const x = comparable(a);
  const y = comparable(b);
  return x !== null && x === y;
}

function order(a: unknown, b: unknown): number | null {
  const x = comparable(a);
  const y = comparable(b);
  if (x === null || y === null || typeof x !== typeof y) return null;
  return x < y ? -1 : x > y ? 1 : 0;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');
const isEmpty = (v: unknown): boolean => v === null || v === '' || (Array.isArray(v) && v.length === 0);
const truthy = (v: unknown): boolean => v === true || v === 'true' || v === 1 || v === '1';

const TEXT_RULES: Record<string, { test: 'contains' | 'starts' | 'ends'; negated: boolean; caseless: boolean; word: string }> = {
  _contains: { test: 'contains', negated: false, caseless: false, word: 'has to contain' },
  _ncontains: { test: 'contains', negated: true, caseless: false, word: "can't contain" },
  _icontains: { test: 'contains', negated: false, caseless: true, word: 'has to contain' },
  _nicontains: { test: 'contains', negated: true, caseless: true, word: "can't contain" },
  _starts_with: { test: 'starts', negated: false, caseless: false, word: 'has to start with' },
  _nstarts_with: { test: 'starts', negated: true, caseless: false, word: "can't start with" },
  _istarts_with: { test: 'starts', negated: false, caseless: true, word: 'has to start with' },
  _nistarts_with: { test: 'starts', negated: true, caseless: true, word: "can't start with" },
  _ends_with: { test: 'ends', negated: false, caseless: false, word: 'has to end with' },
  _nends_with: { test: 'ends', negated: true, caseless: false, word: "can't end with" },
  _iends_with: { test: 'ends', negated: false, caseless: true, word: 'has to end with' },
  _niends_with: { test: 'ends', negated: true, caseless: true, word: "can't end with" },
};

/** Whether one operator holds for a value, and Directus' wording of the rule when it does not. */
function check(op: string, raw: unknown, value: unknown, acc: Accountability): string | null {
  const expected = resolveVariable(raw, acc);
  switch (op) {
    case '_eq': return same(value, expected) ? null : `Value has to be "${text(expected)}".`;
    case '_neq': return !same(value, expected) ? null : `Value can't be "${text(expected)}".`;
    case '_lt': case '_lte': case '_gt': case '_gte': {
      const o = order(value, expected);
      const ok = o !== null && (op === '_lt' ? o < 0 : op === '_lte' ? o <= 0 : op === '_gt' ? o > 0 : o >= 0);
      const word = { _lt: 'less than', _lte: 'less than or equal to', _gt: 'greater than', _gte: 'greater than or equal to' }[op];
      return ok ? null : `Value has to be ${word} "${text(expected)}".`;
    }
    case '_in': case '_nin': {
      const values = list(raw, acc);
      const found = values.some((v) => same(value, v));
      if (op === '_in') return found ? null : `Value has to be one of ${values.map(text).join(', ')}.`;
      return !found ? null : `Value can't be one of ${values.map(text).join(', ')}.`;
    }
    case '_null': return (value === null) === truthy(expected) ? null : truthy(expected) ? 'Value has to be null.' : "Value can't be null.";
    case '_nnull': return (value !== null) === truthy(expected) ? null : truthy(expected) ? "Value can't be null." : 'Value has to be null.';
    case '_empty': return isEmpty(value) === truthy(expected) ? null : truthy(expected) ? 'Value has to be empty.' : "Value can't be empty.";
    case '_nempty': return !isEmpty(value) === truthy(expected) ? null : truthy(expected) ? "Value can't be empty." : 'Value has to be empty.';
    case '_contains': case '_ncontains': case '_icontains': case '_nicontains': case '_starts_with': case '_nstarts_with':
    case '_istarts_with': case '_nistarts_with': case '_ends_with': case '_nends_with': case '_iends_with': case '_niends_with': {
      const rule = TEXT_RULES[op];
      const raw = typeof value === 'string' ? value : value === null ? '' : text(value);
      const needle = text(expected);
      const [haystack, wanted] = rule.caseless ? [raw.toLowerCase(), needle.toLowerCase()] : [raw, needle];
      const hit = rule.test === 'contains' ? haystack.includes(wanted) : rule.test === 'starts' ? haystack.startsWith(wanted) : haystack.endsWith(wanted);
      return hit !== rule.negated ? null : `Value ${rule.word} "${needle}".`;
    }
    case '_regex': {
      let pattern: RegExp;
      try {
        pattern = new RegExp(text(expected));
      } catch {
        return 'Invalid regular expression.';
      }
      return typeof value === 'string' && pattern.test(value) ? null : `Value has to match ${text(expected)}.`;
    }
    case '_between': case '_nbetween': {
      const [low, high] = list(raw, acc);
      const a = order(value, low);
      const b = order(value, high);
      const inside = a !== null && b !== null && a >= 0 && b <= 0;
      if (op === '_between') return inside ? null : `Value has to be between ${text(low)} and ${text(high)}.`;
      return !inside ? null : `Value can't be between ${text(low)} and ${text(high)}.`;
    }
    default: return `Unknown rule "${op}".`;
  }
}

function evaluate(rule: Filter, payload: Record<string, unknown>, acc: Accountability, path: string): Failure[] {
  const failures: Failure[] = [];
  for (const [key, value] of Object.entries(rule)) {
    if (key === '_and' || key === '_or') {
      const parts = Array.isArray(value) ? value.filter(isObject).map((v) => evaluate(v, payload, acc, path)) : [];
      if (key === '_and') failures.push(...parts.flat());
      else if (parts.length > 0 && parts.every((p) => p.length > 0)) failures.push(...parts[0]);
      continue;
    }
    if (!Object.hasOwn(payload, key) || !isObject(value)) continue;
    const field = path ? `${path}.${key}` : key;
    const current = payload[key];
    const operators = Object.keys(value).filter((k) => FILTER_OPERATORS.has(k));
    for (const op of operators) {
      const message = check(op, value[op], current, acc);
      if (message) failures.push({ field, type: op, message: `Validation failed for field "${field}". ${message}` });
    }
    const nested = Object.fromEntries(Object.entries(value).filter(([k]) => !FILTER_OPERATORS.has(k)));
    if (Object.keys(nested).length > 0 && isObject(current)) failures.push(...evaluate(nested, current, acc, field));
  }
  return failures;
}

/** Throws INVALID_PAYLOAD (one error per failing rule, extensions {field, type}) when the payload breaks the rule. */
export function validatePayload(rule: Filter | null, payload: Record<string, unknown>, acc: Accountability): void {
  if (!rule) return;
  const failures = evaluate(rule, payload, acc, '');
  if (failures.length === 0) return;
  const errors = failures.map((f) => new InvalidPayloadError(f.message, { field: f.field, type: f.type }));
  if (errors.length === 1) throw errors[0];
  throw new ErrorList(errors);
}
