/** Compile checks for what the admin API stores: Handlebars template text (layouts, contents) and JSON
 * schemas (variables_schema of layouts and templates). A failure is a 400 naming the field and the reason. */
import Handlebars from 'handlebars';
import { Ajv } from 'ajv';
import { InvalidPayloadError } from '../errors.ts';
import { isPlainObject } from '../items/write/payload.ts';
import { tooDeep } from './template-validation.ts';

/** Throws INVALID_PAYLOAD when `text` does not compile as a Handlebars template (message names line and reason). */
export function assertTemplateCompiles(field: string, text: string): void {
  const deep = tooDeep(text);
  if (deep) throw new InvalidPayloadError(`"${field}" is not a valid template (line ${deep.line}): ${deep.message}`, { field });
  try {
    Handlebars.precompile(text);
  } catch (err) {
    const e = err as { message?: string; lineNumber?: number; column?: number };
    const message = String(e.message ?? err).replace(/\s*\n\s*/g, ' ').slice(0, 300);
    const where = typeof e.lineNumber === 'number' ? ` (line ${e.lineNumber}${typeof e.column === 'number' ? `, column ${e.column}` : ''})` : '';
    throw new InvalidPayloadError(`"${field}" is not a valid template${where}: ${message}`, { field });
  }
}

// Created on the first check, not at import (building an Ajv instance compiles its meta-schemas).
let ajvInstance: Ajv | null = null;
const getAjv = () => (ajvInstance ??= new Ajv({ strict: false, allErrors: false, validateSchema: true }));

/** Throws INVALID_PAYLOAD unless `schema` is null/absent or an object that compiles as a JSON schema. */
export function assertJsonSchema(field: string, schema: unknown): void {
  if (schema === null || schema === undefined) return;
  if (!isPlainObject(schema) && typeof schema !== 'boolean') throw new InvalidPayloadError(`"${field}" must be a JSON schema object.`, { field });
  try {
    getAjv().compile(schema as object);
  } catch (err) {
    throw new InvalidPayloadError(`"${field}" is not a valid JSON schema: ${String((err as Error).message ?? err).slice(0, 300)}`, { field });
  } finally {
    if (typeof schema === 'object') getAjv().removeSchema(schema);
  }
}
