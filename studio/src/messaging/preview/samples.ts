/** Sample variables from a template's (and its layout's) variables_schema, for the live preview: a value for every
 * property that fits its type, preferring what the schema itself offers (default, examples, const, enum). Only
 * suggestions: the editor shows them as JSON to change. */

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const words = (key: string): string => key.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().trim();

function sampleString(schema: Schema, key: string): string {
  switch (schema.format) {
    case 'email': return 'ada@example.com';
    case 'uri': case 'url': case 'iri': return 'https://example.com/';
    case 'date-time': return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    case 'date': return new Date().toISOString().slice(0, 10);
    case 'time': return '09:30:00';
    case 'uuid': return '00000000-0000-4000-8000-000000000000';
    default: break;
  }
  const k = key.toLowerCase();
  if (k.includes('email')) return 'ada@example.com';
  if (k.includes('url') || k.includes('link')) return 'https://example.com/';
  if (k === 'name' || k.endsWith('name')) return 'Ada Lovelace';
  const text = key ? `Sample ${words(key)}` : 'Sample text';
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  return text.length >= min ? text : text.padEnd(min, '.');
}

function typeOf(schema: Schema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null') as string | undefined;
  if (isObject(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

export function sampleOf(schema: unknown, key = '', depth = 0): unknown {
  if (!isObject(schema) || depth > 8) return key ? `Sample ${words(key)}` : null;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const k of ['oneOf', 'anyOf', 'allOf'] as const) {
    const list = schema[k];
    if (Array.isArray(list) && list.length > 0) {
      if (k !== 'allOf') return sampleOf(list[0], key, depth + 1);
      return list.reduce<unknown>((acc, s) => merge(acc, sampleOf(s, key, depth + 1)), undefined);
    }
  }
  switch (typeOf(schema)) {
    case 'string': return sampleString(schema, key);
    case 'integer': case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : null;
      const max = typeof schema.maximum === 'number' ? schema.maximum : null;
      let n = min ?? 3;
      if (max !== null && n > max) n = max;
      return typeOf(schema) === 'integer' ? Math.ceil(n) : n;
    }
    case 'boolean': return true;
    case 'null': return null;
    case 'array': {
      const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
      const min = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 5) : 0;
      return Array.from({ length: Math.max(min, 2) }, () => sampleOf(items, key.replace(/s$/, ''), depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isObject(schema.properties) ? schema.properties : {};
      for (const [k, s] of Object.entries(props)) out[k] = sampleOf(s, k, depth + 1);
      return out;
    }
    default: return key ? `Sample ${words(key)}` : null;
  }
}

function merge(a: unknown, b: unknown): unknown {
  return isObject(a) && isObject(b) ? { ...a, ...b } : b ?? a;
}

/** Sample variables for a message: the template's schema, with what its layout's adds. */
export function sampleVariables(...schemas: unknown[]): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  for (const s of schemas) {
    const v = sampleOf(s);
    if (isObject(v)) out = { ...out, ...v };
  }
  return out;
}
