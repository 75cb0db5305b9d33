/** Small helpers of the public user flows (invitation, reset, registration): their body fields. The account
 * lookup by email is userByEmail in ./table.ts. */
import { InvalidPayloadError } from '../errors.ts';

/** A required string field of a body: 400 INVALID_PAYLOAD in Joi's wording, as Directus. */
export function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null || value === '') throw new InvalidPayloadError(`"${field}" is required`);
  if (typeof value !== 'string') throw new InvalidPayloadError(`"${field}" must be a string`);
  return value;
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidPayloadError(`"${field}" must be a string`);
  return value;
}
