/** Trigger variables checked against the template's variables_schema (a JSON schema) with ajv, before anything is
 * written: the first failure answers 400 INVALID_PAYLOAD naming the variable. Validators are compiled once per
 * (template id, schema text) and kept in a bounded LRU. A schema that does not compile is the template's fault:
 * 400 as well, saying so. */
import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InvalidPayloadError } from '../../errors.ts';
import { Lru } from './lru.ts';

// Created on the first template with a variables schema, not at import (an Ajv instance compiles its meta-schemas).
let ajvInstance: Ajv | null = null;
const getAjv = () => (ajvInstance ??= new Ajv({ allErrors: true, strict: false }));
const cache = new Lru<ValidateFunction>(200);

function validatorFor(templateId: string, schema: unknown): ValidateFunction {
  const text = JSON.stringify(schema);
  const key = `${templateId}:${createHash('sha1').update(text).digest('base64url')}`;
  let fn = cache.get(key);
  if (!fn) {
    try {
      fn = getAjv().compile(schema as object);
    } catch (err) {
      throw new InvalidPayloadError(`The variables_schema of template "${templateId}" is not a valid JSON schema: ${(err as Error).message}`);
    }
    cache.set(key, fn);
  }
  return fn;
}

function variableOf(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty?: string }).missingProperty ?? '';
    return path ? `${path}.${missing}` : missing;
  }
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty?: string }).additionalProperty ?? '';
    return path ? `${path}.${extra}` : extra;
  }
  return path;
}

export function validateVariables(templateId: string, schema: unknown, variables: Record<string, unknown>): void {
  if (schema === null || schema === undefined) return;
  if (typeof schema !== 'object' && typeof schema !== 'boolean') return;
  const validate = validatorFor(templateId, schema);
  if (validate(variables)) return;
  const errors = validate.errors ?? [];
  const first = errors[0];
  const variable = first ? variableOf(first) : '';
  const detail = errors.map((e) => `${variableOf(e) || '(variables)'} ${e.message ?? 'is invalid'}`).join('; ');
  throw new InvalidPayloadError(`Invalid variables: "${variable}" ${first?.message ?? 'is invalid'}.`, { field: `variables.${variable}`, variable, details: detail });
}
