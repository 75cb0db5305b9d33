/** settings.public_registration_email_filter: a JSON array of allowed domains (SPEC.md), or Directus' filter
 * object over `email` (`{_and|_or: [...]}`, `{email: {_ends_with: '@x.org'}}` ...). A filter that cannot be
 * understood allows nobody. */

import { isFilterOperator, operatorSpec } from '../query/operators.ts';

type Check = (email: string) => boolean;

const lower = (v: unknown): unknown => (typeof v === 'string' ? v.toLowerCase() : v);

/** One operator over the (lowercased) email, evaluated as permission validation does (core/query/operators.ts),
 * caseless: the argument is lowercased too. Only the operators whose record says `email`; a one-value operator
 * needs a string and a list operator an array (its non-strings are skipped), or the filter allows nobody. */
function operator(op: string, arg: unknown): Check {
  const spec = isFilterOperator(op) ? operatorSpec(op) : null;
  if (!spec?.email) return () => false;
  if (spec.operand === 'list') {
    if (!Array.isArray(arg)) return () => false;
    const members = arg.filter((v) => typeof v === 'string').map(lower);
    return (e) => spec.check(e, { expected: members, list: () => members }) === null;
  }
  if (typeof arg !== 'string') return () => false;
  const wanted = arg.toLowerCase();
  // A valid email holds an "@", so it never reads as a number or a date: equality is plain string equality.
  return (e) => spec.check(e, { expected: wanted, list: () => [wanted] }) === null;
}

function compile(filter: unknown, depth: number): Check {
  if (depth > 10 || typeof filter !== 'object' || filter === null || Array.isArray(filter)) return () => false;
  const checks: Check[] = Object.entries(filter).map(([key, value]): Check => {
    if (key === '_and' || key === '_or') {
      if (!Array.isArray(value)) return () => false;
      const parts = value.map((v) => compile(v, depth + 1));
      return key === '_and' ? (e) => parts.every((p) => p(e)) : (e) => parts.some((p) => p(e));
    }
    if (key !== 'email' || typeof value !== 'object' || value === null) return () => false;
    const ops = Object.entries(value).map(([op, arg]) => operator(op, arg));
    return (e) => ops.every((o) => o(e));
  });
  return (e) => checks.every((c) => c(e));
}

export function emailAllowed(filter: unknown, email: string): boolean {
  if (filter === null || filter === undefined) return true;
  const value = typeof filter === 'string' ? safeParse(filter) : filter;
  if (value === null) return true;
  const lower = email.toLowerCase();
  if (Array.isArray(value)) {
    if (value.length === 0) return true;
    const domain = lower.slice(lower.lastIndexOf('@') + 1);
    return value.some((d) => typeof d === 'string' && d.toLowerCase().replace(/^@/, '') === domain);
  }
  return compile(value, 0)(lower);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
