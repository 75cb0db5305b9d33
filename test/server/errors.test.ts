/** The error envelope over HTTP and the error catalogue of core/errors.ts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ForbiddenError, InvalidPayloadError, mapDatabaseError, NotFoundError, RecordNotUniqueError, ServiceError, toErrorResponse,
  normalizeErrors, ErrorList, InvalidCredentialsError,
} from '../../core/errors.ts';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp({ env: { MAX_PAYLOAD_SIZE: '1kb' } }); });
afterAll(async () => { await t.close(); });

const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

describe('request bodies (POST /auth/login)', () => {
  it('answers malformed JSON with 400 INVALID_PAYLOAD', async () => {
    const res = await t.req('POST', '/auth/login', '{"email": "a@b.c", "password": ', { token: null });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ message: 'Invalid JSON body.', extensions: { code: 'INVALID_PAYLOAD' } }] });
  });

  it('answers a body over MAX_PAYLOAD_SIZE with 413 CONTENT_TOO_LARGE', async () => {
    const res = await t.req('POST', '/auth/login', { email: 'a@example.com', password: 'x'.repeat(2000) }, { token: null });
    expect(res.status).toBe(413);
    expect(code(res)).toBe('CONTENT_TOO_LARGE');
  });

  it('enforces the limit while streaming when no content-length is declared', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(600));
    const body = new ReadableStream<Uint8Array>({
      start(controller) { controller.enqueue(chunk); controller.enqueue(chunk); controller.close(); },
    });
    const res = await t.app.request('/auth/login', {
      method: 'POST', body, headers: { 'content-type': 'application/json' }, duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).errors[0].extensions.code).toBe('CONTENT_TOO_LARGE');
  });

  it('accepts a body just under the limit', async () => {
    const res = await t.req('POST', '/auth/login', { email: 'a@example.com', password: 'x'.repeat(900) }, { token: null });
    expect(res.status).toBe(401);
  });

  it('answers a non-JSON content type with 400 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.req('POST', '/auth/login', 'email=a', { token: null, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(400);
    expect(code(res)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('routing', () => {
  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await t.req('GET', '/no/such/route', undefined, { token: null });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ errors: [{ message: "Route /no/such/route doesn't exist.", extensions: { code: 'NOT_FOUND' } }] });
  });

  it('answers a known path with an unknown method with 404 too', async () => {
    const res = await t.req('DELETE', '/auth/login', undefined, { token: null });
    expect(res.status).toBe(404);
    expect(code(res)).toBe('NOT_FOUND');
  });
});

describe('mapDatabaseError', () => {
  const pg = (code: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(`raw database text ${code}`), { code, ...extra });

  it('maps a unique violation to 409 RECORD_NOT_UNIQUE "Value has to be unique"', () => {
    const err = mapDatabaseError(pg('23505', { table: 'articles', detail: 'Key (slug)=(a) already exists.' })) as ServiceError;
    expect(err).toBeInstanceOf(RecordNotUniqueError);
    expect(err).toMatchObject({ status: 409, code: 'RECORD_NOT_UNIQUE', message: 'Value has to be unique' });
    expect(err.extensions).toEqual({ collection: 'articles', field: 'slug' });
    expect(err.reason).toContain('raw database text 23505');
  });

  it.each([
    ['23502', 'not-null violation', { column: 'title' }],
    ['23503', 'foreign-key violation', { detail: 'Key (author)=(x) is not present in table "users".' }],
    ['23514', 'check violation', {}],
    ['22P02', 'invalid input syntax', {}],
  ])('maps %s (%s) to 400 INVALID_PAYLOAD', (sqlState, _name, extra) => {
    const err = mapDatabaseError(pg(sqlState, extra)) as ServiceError;
    expect(err).toBeInstanceOf(InvalidPayloadError);
    expect(err).toMatchObject({ status: 400, code: 'INVALID_PAYLOAD' });
    expect(err.message).not.toContain('raw database text');
  });

  it('names the field of a not-null violation', () => {
    const err = mapDatabaseError(pg('23502', { column: 'title' })) as ServiceError;
    expect(err.message).toBe('Value for field "title" can\'t be null.');
    expect(err.extensions.field).toBe('title');
  });

  it('passes through what is not a database error, or an unmapped one', () => {
    const plain = new Error('boom');
    expect(mapDatabaseError(plain)).toBe(plain);
    const other = pg('40001');
    expect(mapDatabaseError(other)).toBe(other);
    expect(mapDatabaseError('text')).toBe('text');
    expect(normalizeErrors(other).errors[0]).toMatchObject({ status: 500, code: 'INTERNAL_SERVER_ERROR' });
  });
});

describe('toErrorResponse', () => {
  it('keeps the status when all errors share it', () => {
    const { status, body } = toErrorResponse([new InvalidPayloadError('a'), new InvalidPayloadError('b')], false);
    expect(status).toBe(400);
    expect(body.errors.map((e) => e.message)).toEqual(['a', 'b']);
  });

  it('answers 500 when several errors carry different statuses', () => {
    const { status, body } = toErrorResponse([new InvalidPayloadError('bad'), new ForbiddenError(), new NotFoundError()], false);
    expect(status).toBe(500);
    expect(body.errors.map((e) => e.extensions.code)).toEqual(['INVALID_PAYLOAD', 'FORBIDDEN', 'NOT_FOUND']);
  });

  it('adds extensions.reason only when asked to', () => {
    const err = new RecordNotUniqueError({ field: 'slug' }, 'duplicate key value violates unique constraint');
    expect(toErrorResponse([err], false).body.errors[0].extensions).toEqual({ code: 'RECORD_NOT_UNIQUE', field: 'slug' });
    expect(toErrorResponse([err], true).body.errors[0].extensions).toEqual({
      code: 'RECORD_NOT_UNIQUE', field: 'slug', reason: 'duplicate key value violates unique constraint',
    });
  });

  it('normalizes an ErrorList into its errors', () => {
    const list = new ErrorList([new InvalidCredentialsError(), new ForbiddenError()]);
    expect(normalizeErrors(list).errors.map((e) => e.code)).toEqual(['INVALID_CREDENTIALS', 'FORBIDDEN']);
  });
});

describe('extensions.reason over HTTP', () => {
  // A unique violation raised by the database inside a request (svc_translations is unique on language+key).
  // The route is registered on the test app only; the error goes through the base app's real error handler.
  async function appWith(env: Record<string, string>) {
    const app = await createTestApp({ env });
    app.app.get('/__test/duplicate', async (c) => {
      const db = c.get('services').database.db;
      await run(db, "insert into svc_translations (id, language, key, value) values (gen_random_uuid(), 'xx', 'dup', 'a')");
      await run(db, "insert into svc_translations (id, language, key, value) values (gen_random_uuid(), 'xx', 'dup', 'b')");
      return c.json({});
    });
    return app;
  }

  it('is hidden by default and never leaks the database message', async () => {
    const app = await appWith({});
    try {
      const res = await app.req('GET', '/__test/duplicate');
      expect(res.status).toBe(409);
      expect(res.body.errors[0]).toEqual({ message: 'Value has to be unique', extensions: { code: 'RECORD_NOT_UNIQUE', collection: 'svc_translations', field: 'language, key' } });
      expect(JSON.stringify(res.body)).not.toContain('duplicate key');
    } finally {
      await app.close();
    }
  });

  it('is present with LOG_LEVEL=debug and holds the raw database message', async () => {
    const app = await appWith({ LOG_LEVEL: 'debug' });
    try {
      const res = await app.req('GET', '/__test/duplicate');
      expect(res.status).toBe(409);
      expect(res.body.errors[0].extensions.code).toBe('RECORD_NOT_UNIQUE');
      expect(res.body.errors[0].extensions.reason).toMatch(/duplicate key value violates unique constraint/);
    } finally {
      await app.close();
    }
  });

  it('is absent for errors without a database reason even at debug level', async () => {
    const app = await createTestApp({ env: { LOG_LEVEL: 'debug' } });
    try {
      const res = await app.req('POST', '/auth/login', { email: 'nobody@example.com', password: 'x' }, { token: null });
      expect(res.body.errors[0].extensions).toEqual({ code: 'INVALID_CREDENTIALS' });
    } finally {
      await app.close();
    }
  });
});
