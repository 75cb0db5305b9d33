/** External sign-on through the Lambda entry (functions/lambda.ts): the redirect flow keeps its state in a cookie,
 * so the start and the callback may run in different invocations (here: two handlers), and the cookies travel in the
 * payload v2 `cookies` arrays. A real OpenID provider answers. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { run } from '../../core/db/database.ts';
import { createLambdaHandler } from '../../functions/lambda.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { event, type EventInput } from '../helpers/lambda-event.ts';
import { startOidcIdp, type TestIdp } from '../helpers/oidc-idp.ts';

const PUBLIC_URL = 'https://abc123.execute-api.eu-west-1.amazonaws.com';
const ROLE = randomUUID();
const context = { functionName: 'svc-functions', awsRequestId: 'req-1' } as unknown as Context;
type Result = Exclude<APIGatewayProxyResultV2, string> & { headers: Record<string, string>; body: string; cookies?: string[] };

let idp: TestIdp;
let t: TestApp;

beforeAll(async () => {
  idp = await startOidcIdp({
    clients: [{ client_id: 'svc', client_secret: 'svc-secret', redirect_uris: [`${PUBLIC_URL}/auth/login/corp/callback`] }],
    accounts: [{ sub: 'lena', email: 'lena@corp.test', email_verified: true, given_name: 'Lena', family_name: 'Lambda' }],
  });
  t = await createTestApp({
    env: {
      PUBLIC_URL,
      AUTH_PROVIDERS: 'corp',
      AUTH_CORP_DRIVER: 'openid',
      AUTH_CORP_CLIENT_ID: 'svc',
      AUTH_CORP_CLIENT_SECRET: 'svc-secret',
      AUTH_CORP_ISSUER_URL: idp.issuer,
      AUTH_CORP_ALLOW_PUBLIC_REGISTRATION: 'true',
      AUTH_CORP_DEFAULT_ROLE_ID: ROLE,
    },
  });
  await run(t.services.database.db, 'insert into svc_roles (id, name) values ($1, $2)', [ROLE, 'Members']);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await idp?.close();
});

/** A cookie's `name=value` from a v2 result's cookies array. */
function cookie(res: Result, name: string): string | undefined {
  return res.cookies?.find((c) => c.startsWith(`${name}=`))?.split(';')[0];
}

describe('external sign-on through the Lambda entry', () => {
  it('starts in one invocation, finishes in another, and the session cookie then works', async () => {
    // Two handlers: nothing of the flow is kept in the one that started it.
    const starter = createLambdaHandler(t.services);
    const finisher = createLambdaHandler(t.services);
    const invoke = async (handler: typeof starter, i: EventInput) => await handler(event(i) as never, context as never) as unknown as Result;

    const redirect = `${PUBLIC_URL}/admin/content`;
    const start = await invoke(starter, { method: 'GET', path: '/auth/login/corp', query: `redirect=${encodeURIComponent(redirect)}` });
    expect(start.statusCode, start.body).toBe(302);
    const flow = cookie(start, 'svc_sso_flow');
    expect(flow).toBeTruthy();
    expect(start.headers.location).toMatch(new RegExp(`^${idp.issuer}/`));

    const back = new URL(await idp.signIn(start.headers.location, 'lena'));
    expect(back.origin + back.pathname).toBe(`${PUBLIC_URL}/auth/login/corp/callback`);
    const done = await invoke(finisher, { method: 'GET', path: back.pathname, query: back.search.slice(1), cookies: [flow!] });
    expect(done.statusCode, done.body).toBe(302);
    expect(done.headers.location).toBe(redirect);
    const session = cookie(done, 'svc_session_token');
    expect(session, JSON.stringify(done.cookies)).toBeTruthy();
    // The flow cookie is cleared.
    expect(done.cookies?.some((c) => /^svc_sso_flow=;/.test(c) || (c.startsWith('svc_sso_flow=') && /Max-Age=0/i.test(c)))).toBe(true);

    const me = await invoke(starter, { method: 'GET', path: '/users/me', query: 'fields=email,provider,external_identifier,role', cookies: [session!] });
    expect(me.statusCode, me.body).toBe(200);
    expect(JSON.parse(me.body).data).toEqual({ email: 'lena@corp.test', provider: 'corp', external_identifier: 'lena', role: ROLE });

    // The same callback again (a replayed code with the flow cookie an attacker copied): refused, no session.
    const replay = await invoke(finisher, { method: 'GET', path: back.pathname, query: back.search.slice(1), cookies: [flow!] });
    expect(replay.statusCode).toBe(302);
    expect(new URL(replay.headers.location).searchParams.get('reason')).toBe('INVALID_CREDENTIALS');
    expect(cookie(replay, 'svc_session_token')).toBeUndefined();
  }, 60_000);
});
