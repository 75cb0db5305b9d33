/** Directus' field conditions, applied live: each `{name, rule, hidden?, readonly?, required?, options?}` whose rule
 * (a filter) matches the form's current values overrides the field's meta; later conditions win. The evaluator
 * covers the filter operators conditions use: comparison, sets, null/empty, text, between, regex, and _and/_or. */
import type { Field } from '../schema.ts';

export interface Condition {
  name?: string;
  rule?: unknown;
  hidden?: boolean;
  readonly?: boolean;
  required?: boolean;
  options?: Record<string, unknown>;
}

export interface FieldState {
  hidden: boolean;
  readonly: boolean;
  required: boolean;
  options: Record<string, unknown> | null;
}

export function fieldState(field: Field, values: Record<string, unknown>): FieldState {
  const meta = field.meta;
  const state: FieldState = { hidden: Boolean(meta?.hidden), readonly: Boolean(meta?.readonly), required: Boolean(meta?.required), options: meta?.options ?? null };
  for (const raw of meta?.conditions ?? []) {
    const c = raw as Condition;
    if (!c || typeof c !== 'object' || !matches(c.rule, values)) continue;
    if (typeof c.hidden === 'boolean') state.hidden = c.hidden;
    if (typeof c.readonly === 'boolean') state.readonly = c.readonly;
    if (typeof c.required === 'boolean') state.required = c.required;
    if (c.options && typeof c.options === 'object') state.options = { ...(state.options ?? {}), ...c.options };
  }
  return state;
}

/** Whether the filter matches the values (an empty or missing filter matches). */
export function matches(filter: unknown, values: unknown): boolean {
  if (!filter || typeof filter !== 'object') return true;
  const f = filter as Record<string, unknown>;
  for (const [key, cond] of Object.entries(f)) {
    if (key === '_and') {
      if (!Array.isArray(cond) || !cond.every((c) => matches(c, values))) return false;
    } else if (key === '_or') {
      if (!Array.isArray(cond) || !cond.some((c) => matches(c, values))) return false;
    } else {
      const value = values && typeof values === 'object' ? (values as Record<string, unknown>)[key] : undefined;
      if (!fieldMatches(value, cond)) return false;
    }
  }
  return true;
}

function isOperatorObject(cond: unknown): cond is Record<string, unknown> {
  return Boolean(cond) && typeof cond === 'object' && !Array.isArray(cond) && Object.keys(cond as object).some((k) => k.startsWith('_'));
}

function fieldMatches(value: unknown, cond: unknown): boolean {
  if (!isOperatorObject(cond)) {
    // A nested filter on a related value ({author: {name: {_eq: ...}}}).
    if (cond && typeof cond === 'object') {
      if (Array.isArray(value)) return value.some((v) => matches(cond, v));
      return matches(cond, value);
    }
    return loosely(value, cond);
  }
  for (const [op, arg] of Object.entries(cond)) {
    if (!operator(op, value, arg)) return false;
  }
  return true;
}

function resolved(v: unknown): unknown {
  // Directus writes the condition's booleans and numbers as given; a form may hold "3" for a decimal.
  return v;
}

function loosely(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a === 'boolean' || typeof b === 'boolean') return String(a) === String(b);
  if (typeof a === 'number' || typeof b === 'number') return Number(a) === Number(b);
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return String(a) === String(b);
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return n;
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  return NaN;
}

function compare(a: unknown, b: unknown): number {
  const x = num(a);
  const y = num(b);
  if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  return String(a ?? '').localeCompare(String(b ?? ''));
}

function list(arg: unknown): unknown[] {
  if (Array.isArray(arg)) return arg;
  if (typeof arg === 'string') return arg.split(',');
  return [arg];
}

function isEmptyValue(v: unknown): boolean {
  return v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  return Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function contains(v: unknown, arg: unknown, insensitive: boolean): boolean {
  if (Array.isArray(v)) return v.some((x) => (insensitive ? String(x).toLowerCase() === String(arg).toLowerCase() : loosely(x, arg)));
  const hay = text(v);
  return insensitive ? hay.toLowerCase().includes(String(arg).toLowerCase()) : hay.includes(String(arg));
}

function operator(op: string, rawValue: unknown, arg: unknown): boolean {
  const value = resolved(rawValue);
  switch (op) {
    case '_eq': return loosely(value, arg);
    case '_neq': return !loosely(value, arg);
    case '_lt': return value != null && compare(value, arg) < 0;
    case '_lte': return value != null && compare(value, arg) <= 0;
    case '_gt': return value != null && compare(value, arg) > 0;
    case '_gte': return value != null && compare(value, arg) >= 0;
    case '_in': return list(arg).some((a) => loosely(value, a));
    case '_nin': return !list(arg).some((a) => loosely(value, a));
    case '_null': return (value === null || value === undefined) === (arg !== false && arg !== 'false');
    case '_nnull': return (value !== null && value !== undefined) === (arg !== false && arg !== 'false');
    case '_empty': return isEmptyValue(value) === (arg !== false && arg !== 'false');
    case '_nempty': return !isEmptyValue(value) === (arg !== false && arg !== 'false');
    case '_contains': return contains(value, arg, false);
    case '_ncontains': return !contains(value, arg, false);
    case '_icontains': return contains(value, arg, true);
    case '_nicontains': return !contains(value, arg, true);
    case '_starts_with': return text(value).startsWith(String(arg));
    case '_nstarts_with': return !text(value).startsWith(String(arg));
    case '_istarts_with': return text(value).toLowerCase().startsWith(String(arg).toLowerCase());
    case '_nistarts_with': return !text(value).toLowerCase().startsWith(String(arg).toLowerCase());
    case '_ends_with': return text(value).endsWith(String(arg));
    case '_nends_with': return !text(value).endsWith(String(arg));
    case '_iends_with': return text(value).toLowerCase().endsWith(String(arg).toLowerCase());
    case '_niends_with': return !text(value).toLowerCase().endsWith(String(arg).toLowerCase());
    case '_between': { const [lo, hi] = list(arg); return value != null && compare(value, lo) >= 0 && compare(value, hi) <= 0; }
    case '_nbetween': { const [lo, hi] = list(arg); return value == null || compare(value, lo) < 0 || compare(value, hi) > 0; }
    case '_regex': {
      try {
        const source = String(arg);
        const m = /^\/(.*)\/([a-z]*)$/s.exec(source);
        return new RegExp(m ? m[1] : source, m ? m[2] : undefined).test(text(value));
      } catch { return false; }
    }
    // Operators on relations in a condition ({tags: {_some: {...}}}).
    case '_some': return Array.isArray(value) && value.some((v) => matches(arg, v));
    case '_none': return !Array.isArray(value) || !value.some((v) => matches(arg, v));
    default: return true;
  }
}
