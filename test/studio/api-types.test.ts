/** The Studio's API types (studio/src/api/schema.d.ts) are generated from our OpenAPI document: an endpoint change
 * the Studio does not know about fails here until `npm run studio:api-types` is run and the file committed. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_PATH, studioApiTypes } from '../../scripts/studio-api-types.ts';

describe('studio/src/api/schema.d.ts', () => {
  it('is what `npm run studio:api-types` writes from GET /server/specs/oas today', async () => {
    expect(await studioApiTypes(), 'run `npm run studio:api-types` and commit studio/src/api/schema.d.ts').toBe(readFileSync(API_TYPES_PATH, 'utf8'));
  }, 60_000);
});
