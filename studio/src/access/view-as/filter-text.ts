/** A filter object (a row filter, a validation rule) in words: "Status equals “published” or Author equals the
 * current user". Unknown shapes fall back to their JSON, so nothing is hidden. */
import { dynamicLabel, operatorInfo } from '../../content/list/filter.ts';
import { titleOf } from '../../content/schema.ts';

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function valueText(v: unknown): string {
  if (typeof v === 'string') {
    if (v.startsWith('$')) {
      if (v === '$CURRENT_USER') return 'the current user';
      if (v === '$CURRENT_ROLE') return 'the current role';
      if (v === '$CURRENT_ROLES') return 'the current roles';
      if (v === '$CURRENT_POLICIES') return 'the current policies';
      return (dynamicLabel(v) ?? v).toLowerCase();
    }
    return `“${v}”`;
  }
  if (Array.isArray(v)) return v.map(valueText).join(', ');
  return JSON.stringify(v);
}

function condition(path: string[], op: string, value: unknown): string {
  const info = operatorInfo(op);
  const subject = path.map(titleOf).join(' → ');
  if (info.operand === 'none') return `${subject} ${info.label}`;
  if (info.operand === 'two' && Array.isArray(value)) return `${subject} ${info.label} ${valueText(value[0])} and ${valueText(value[1])}`;
  return `${subject} ${info.label} ${valueText(value)}`;
}

function parts(filter: unknown, path: string[]): string[] {
  if (!isPlain(filter)) return [JSON.stringify(filter)];
  const out: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if ((key === '_and' || key === '_or') && Array.isArray(value)) {
      const inner = value.map((v) => describeFilter(v, path));
      const joined = inner.join(key === '_and' ? ' and ' : ' or ');
      out.push(inner.length > 1 ? `(${joined})` : joined);
    } else if (key === '_some' || key === '_none') {
      out.push(`${key === '_some' ? 'some' : 'no'} ${path.map(titleOf).join(' → ')} where ${describeFilter(value, [])}`);
    } else if (key.startsWith('_')) {
      out.push(condition(path, key, value));
    } else {
      out.push(...parts(value, [...path, key]));
    }
  }
  return out;
}

export function describeFilter(filter: unknown, path: string[] = []): string {
  const list = parts(filter, path);
  const text = list.join(' and ');
  // A whole filter wrapped in one group reads better without the brackets.
  return path.length === 0 && list.length === 1 && text.startsWith('(') && text.endsWith(')') ? text.slice(1, -1) : text;
}
