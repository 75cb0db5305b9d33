/** Permission `validation` (SPEC.md > svc_permissions) and the fields' own `meta.validation`: the payload of a
 * create or update, presets applied, must match the rule. Same filter syntax as queries, evaluated in JS over the payload values. As in Directus,
 * a field the payload does not carry is not checked; a nested object is checked against a nested rule. */
import type { Accountability } from './accountability.ts';
import { ErrorList, InvalidPayloadError } from '../errors.ts';
import { resolveVariable } from '../query/filter-values.ts';
import { isFilterOperator, operatorSpec, type FilterOperator } from '../query/operators.ts';
import type { Filter } from '../query/types.ts';

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

/** Whether one operator holds for a value, and Directus' wording of the rule when it does not (operators.ts). */
function check(op: FilterOperator, raw: unknown, value: unknown, acc: Accountability): string | null {
  return operatorSpec(op).check(value, { expected: resolveVariable(raw, acc), list: () => list(raw, acc) });
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
    const operators = Object.keys(value).filter(isFilterOperator);
    for (const op of operators) {
      const message = check(op, value[op], current, acc);
      if (message) failures.push({ field, type: op, message: `Validation failed for field "${field}". ${message}` });
    }
    const nested = Object.fromEntries(Object.entries(value).filter(([k]) => !isFilterOperator(k)));
    if (Object.keys(nested).length > 0 && isObject(current)) failures.push(...evaluate(nested, current, acc, field));
  }
  return failures;
}

/** Throws INVALID_PAYLOAD (one error per failing rule, extensions {field, type}) when the payload breaks the rule;
 * `messages` replaces the wording for a field (a field's own validation_message). */
export function validatePayload(rule: Filter | null, payload: Record<string, unknown>, acc: Accountability, messages?: Record<string, string>): void {
  if (!rule) return;
  const failures = evaluate(rule, payload, acc, '');
  if (failures.length === 0) return;
  const errors = failures.map((f) => new InvalidPayloadError(messages?.[f.field] ?? f.message, { field: f.field, type: f.type }));
  if (errors.length === 1) throw errors[0];
  throw new ErrorList(errors);
}
