/** /users (SPEC.md > Users) in Directus' wire shapes: CRUD, /users/me, invitations, registration, two-factor. */
import type { Context, Hono } from 'hono';
import { readCurrentUser, selectFields } from '../../core/auth/me.ts';
import { InvalidPayloadError } from '../../core/errors.ts';
import { readItem, readItems } from '../../core/items/read.ts';
import { isPlainObject } from '../../core/items/write/payload.ts';
import { acceptInvite, inviteUsers } from '../../core/users/invite.ts';
import { trackPage, updateMe } from '../../core/users/me.ts';
import { registerUser, verifyRegistration } from '../../core/users/register.ts';
import {
  createUsers, deleteUsers, updateUser, updateUserBatch, updateUsers, updateUsersByQuery,
} from '../../core/users/service.ts';
import { confirmTfa, disableOwnTfa, disableTfaOf, enableTfa, generateTfa } from '../../core/users/tfa.ts';
import { readJson, readJsonObject } from '../http/body.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { parseQueryString, queryOf, requestQuery } from '../http/query-string.ts';

const USERS = 'svc_users';

async function requiredBody(c: Context<AppEnv>): Promise<unknown> {
  const value = await readJson(c);
  if (value === undefined || value === null) throw new InvalidPayloadError('Invalid payload. Payload in body is required.');
  return value;
}

/** Directus' validateBatch: exactly one of `keys` and `query` (plus `data` on update). */
function batchKind(value: Record<string, unknown>, withData: boolean): 'keys' | 'query' {
  const allowed = withData ? ['keys', 'query', 'data'] : ['keys', 'query'];
  const extra = Object.keys(value).find((k) => !allowed.includes(k));
  if (extra) throw new InvalidPayloadError(`Invalid payload. "${extra}" is not allowed.`);
  if ((value.keys !== undefined) === (value.query !== undefined)) throw new InvalidPayloadError('Invalid payload. Exactly one of "keys" and "query" is required.');
  if (value.query !== undefined && !isPlainObject(value.query)) throw new InvalidPayloadError('Invalid payload. "query" must be an object.');
  if (withData && !isPlainObject(value.data)) throw new InvalidPayloadError('Invalid payload. "data" is required and must be an object.');
  return value.keys !== undefined ? 'keys' : 'query';
}

export function mountUserRoutes(app: Hono<AppEnv>): void {
  // Fixed paths first, so "me", "invite" and "register" never reach the /users/:id routes.
  app.get('/users/me', async (c) => {
    const fields = selectFields(parseQueryString(c).fields);
    return c.json({ data: await readCurrentUser(c.get('services').database.db, c.get('accountability'), fields) });
  });

  app.patch('/users/me', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updateMe(c.get('services'), ctx, await requiredBody(c)) });
  });

  app.patch('/users/me/track/page', async (c) => {
    await trackPage(c.get('services').database.db, c.get('accountability'), await readJsonObject(c));
    return c.body(null, 204);
  });

  app.post('/users/me/tfa/generate', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await generateTfa(c.get('services'), ctx, await readJsonObject(c)) });
  });

  // `{password}` turns two-factor on and answers the secret (SPEC.md); `{secret, otp}` or `{otp}` confirms a
  // secret from /tfa/generate (Directus) and answers 204.
  app.post('/users/me/tfa/enable', async (c) => {
    const ctx = await serviceContext(c);
    const body = await readJsonObject(c);
    if (body.otp === undefined) return c.json({ data: await enableTfa(c.get('services'), ctx, body) });
    await confirmTfa(c.get('services'), ctx, body);
    return c.body(null, 204);
  });

  app.post('/users/me/tfa/disable', async (c) => {
    await disableOwnTfa(c.get('services'), await serviceContext(c), await readJsonObject(c));
    return c.body(null, 204);
  });

  app.post('/users/invite', async (c) => {
    await inviteUsers(c.get('services'), await serviceContext(c), await readJsonObject(c));
    return c.body(null, 204);
  });

  app.post('/users/invite/accept', async (c) => {
    await acceptInvite(c.get('services'), await readJsonObject(c));
    return c.body(null, 204);
  });

  app.post('/users/register', async (c) => {
    await registerUser(c.get('services'), await readJsonObject(c));
    return c.body(null, 204);
  });

  app.get('/users/register/verify-email', async (c) => {
    await verifyRegistration(c.get('services'), c.req.query('token'));
    return c.body(null, 204);
  });

  app.get('/users', async (c) => {
    const ctx = { ...(await serviceContext(c)), system: true };
    return jsonText(c, await readItems(ctx, USERS, requestQuery(c)));
  });

  app.get('/users/:id', async (c) => {
    const ctx = { ...(await serviceContext(c)), system: true };
    return jsonText(c, await readItem(ctx, USERS, c.req.param('id'), requestQuery(c)));
  });

  app.post('/users', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createUsers(c.get('services'), ctx, await requiredBody(c)) });
  });

  app.patch('/users', async (c) => {
    const ctx = await serviceContext(c);
    const services = c.get('services');
    const body = await requiredBody(c);
    if (Array.isArray(body)) return c.json({ data: await updateUserBatch(services, ctx, body) });
    if (!isPlainObject(body)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
    if (batchKind(body, true) === 'keys') return c.json({ data: await updateUsers(services, ctx, body.keys, body.data) });
    return c.json({ data: await updateUsersByQuery(services, ctx, queryOf(ctx.config, body.query), body.data) });
  });

  app.patch('/users/:id', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updateUser(c.get('services'), ctx, c.req.param('id'), await requiredBody(c)) });
  });

  app.post('/users/:id/tfa/disable', async (c) => {
    await disableTfaOf(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });

  app.delete('/users', async (c) => {
    const ctx = await serviceContext(c);
    const body = await requiredBody(c);
    let keys: unknown = body;
    if (!Array.isArray(body)) {
      if (!isPlainObject(body) || batchKind(body, false) !== 'keys') throw new InvalidPayloadError('Invalid payload. Expected an array of keys or {keys}.');
      keys = body.keys;
    }
    await deleteUsers(c.get('services'), ctx, keys);
    return c.body(null, 204);
  });

  app.delete('/users/:id', async (c) => {
    await deleteUsers(c.get('services'), await serviceContext(c), [c.req.param('id')]);
    return c.body(null, 204);
  });
}
