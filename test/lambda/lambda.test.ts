/** The Lambda entry (functions/lambda.ts) driven with API Gateway HTTP API payload v2 events. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { run } from '../../core/db/database.ts';
import { createLambdaHandler } from '../../functions/lambda.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { event, type EventInput } from '../helpers/lambda-event.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/template.ts';

let t: TestApp;
let handler: ReturnType<typeof createLambdaHandler>;

beforeAll(async () => {
  t = await createTestApp();
  handler = createLambdaHandler(t.services);
});
afterAll(async () => { await t.close(); });

const context = { functionName: 'svc-functions', awsRequestId: 'req-1' } as unknown as Context;

type Result = Exclude<APIGatewayProxyResultV2, string> & { headers: Record<string, string>; body: string; cookies?: string[] };
async function invoke(i: EventInput): Promise<Result> {
  return await handler(event(i) as never, context as never) as unknown as Result;
}

describe('Lambda handler (API Gateway HTTP API v2)', () => {
  it('GET /server/ping -> 200 text pong', async () => {
    const res = await invoke({ method: 'GET', path: '/server/ping' });
    expect(res.statusCode).toBe(200);
    expect(res.isBase64Encoded).toBe(false);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe('pong');
  });

  it('POST /auth/login with a JSON body -> tokens, client IP and user agent from the request context', async () => {
    const res = await invoke({
      method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.isBase64Encoded).toBe(false);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(res.body);
    expect(Object.keys(body.data).sort()).toEqual(['access_token', 'expires', 'refresh_token']);
    const [session] = await run<{ ip: string; user_agent: string }>(t.services.database.db,
      'select ip, user_agent from svc_sessions where token = $1', [body.data.refresh_token]);
    expect(session).toEqual({ ip: '198.51.100.7', user_agent: 'lambda-test/1.0' });

    const me = await invoke({ method: 'GET', path: '/auth/me', query: 'fields=email', headers: { authorization: `Bearer ${body.data.access_token}` } });
    expect(me.statusCode).toBe(200);
    expect(JSON.parse(me.body)).toEqual({ data: { email: ADMIN_EMAIL } });
  });

  it('POST /auth/login with a base64-encoded body', async () => {
    const res = await invoke({
      method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json; charset=utf-8' },
      body: Buffer.from(JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).toString('base64'), base64: true,
    });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).data.access_token).toEqual(expect.any(String));
  });

  it('returns Set-Cookie through the v2 cookies array and reads cookies from it (login mode session)', async () => {
    const res = await invoke({
      method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, mode: 'session' }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.cookies).toHaveLength(1);
    expect(res.cookies![0]).toMatch(/^svc_session_token=/);
    const me = await invoke({ method: 'GET', path: '/auth/me', query: 'fields=id', cookies: [res.cookies![0].split(';')[0]] });
    expect(me.statusCode).toBe(200);
  });

  it('answers wrong credentials in the error envelope', async () => {
    const res = await invoke({
      method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: 'wrong-password' }),
    });
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ errors: [{ message: 'Invalid user credentials.', extensions: { code: 'INVALID_CREDENTIALS' } }] });
  });

  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await invoke({ method: 'GET', path: '/nothing/here', query: 'a=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({ errors: [{ message: "Route /nothing/here doesn't exist.", extensions: { code: 'NOT_FOUND' } }] });
  });
});
