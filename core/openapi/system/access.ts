/** /users, /roles, /policies, /permissions, /access, /app-permissions (functions/routes/users.ts, roles.ts,
 * policies.ts, permissions.ts, access.ts, app-permissions.ts). */
import { LIST_PARAMETERS, ONE_PARAMETERS, QUERY_SCHEMA } from '../components.ts';
import { operation } from '../operation.ts';
import type { SchemaObject } from '../types.ts';
import { recordRoutes } from './crud.ts';
import { arrayOf, endpoint, freeObject, listOf, oneOrMany, pathParam, type Endpoint, type SystemContext } from './endpoint.ts';

const str: SchemaObject = { type: 'string' };
const bool: SchemaObject = { type: 'boolean' };
const nullableStr: SchemaObject = { type: 'string', nullable: true };
const ACTION_ACCESS: SchemaObject = {
  type: 'object', required: ['access', 'fields', 'permissions', 'validation', 'presets'],
  properties: {
    access: { type: 'string', enum: ['full', 'partial'] }, fields: arrayOf(str),
    permissions: { ...freeObject('Row filter (null: every row)'), nullable: true },
    validation: { ...freeObject(), nullable: true }, presets: { ...freeObject(), nullable: true },
  },
};
/** GET /permissions/as/{user} (core/admin/view-as.ts). */
const VIEW_AS: SchemaObject = {
  type: 'object', required: ['user', 'roles', 'policies', 'ip', 'globals', 'app_permissions', 'permissions'],
  properties: {
    user: {
      type: 'object', required: ['id', 'email', 'first_name', 'last_name', 'status', 'role'],
      properties: { id: str, email: nullableStr, first_name: nullableStr, last_name: nullableStr, status: str, role: nullableStr },
    },
    roles: arrayOf({ type: 'object', required: ['id', 'name'], properties: { id: str, name: nullableStr } }),
    policies: arrayOf({
      type: 'object', required: ['id', 'name', 'admin_access', 'app_access', 'ip_access', 'applies'],
      properties: {
        id: str, name: nullableStr, admin_access: bool, app_access: bool,
        ip_access: { type: 'array', items: str, nullable: true }, applies: bool,
      },
    }),
    ip: nullableStr,
    globals: {
      type: 'object', required: ['app_access', 'admin_access', 'enforce_tfa'],
      properties: { app_access: bool, admin_access: bool, enforce_tfa: bool },
    },
    app_permissions: arrayOf(str),
    permissions: {
      type: 'object', description: 'Collection -> action -> access, as GET /permissions/me',
      additionalProperties: { type: 'object', additionalProperties: ACTION_ACCESS },
    },
  },
};
const TFA_SECRET: SchemaObject = { type: 'object', properties: { secret: str, otpauth_url: str } };

function users(ctx: SystemContext): Endpoint[] {
  const tag = 'Users';
  const user = ctx.record('svc_users');
  const key = ctx.key('svc_users');
  const id = pathParam('id', 'User id', key);
  const none = { status: 204 as const };
  return [
    endpoint('get', '/users', operation({ id: 'readUsers', summary: 'List users', tag, parameters: LIST_PARAMETERS, data: listOf(user), raw: true })),
    endpoint('post', '/users', operation({
      id: 'createUsers', summary: 'Create one or more users', tag, body: oneOrMany(user), data: oneOrMany(key), unique: true,
    })),
    endpoint('patch', '/users', operation({
      id: 'updateUsers', summary: 'Update several users', tag, unique: true, data: arrayOf(key),
      body: {
        oneOf: [
          { type: 'object', required: ['keys', 'data'], properties: { keys: arrayOf(key), data: user } },
          { type: 'object', required: ['query', 'data'], properties: { query: QUERY_SCHEMA, data: user } },
          arrayOf(user),
        ],
      },
    })),
    endpoint('delete', '/users', operation({
      id: 'deleteUsers', summary: 'Delete several users', tag, ...none,
      body: { oneOf: [arrayOf(key), { type: 'object', required: ['keys'], properties: { keys: arrayOf(key) } }] },
    })),
    endpoint('get', '/users/me', operation({ id: 'readMe', summary: 'Read the current user', tag, parameters: ONE_PARAMETERS, data: user })),
    endpoint('patch', '/users/me', operation({
      id: 'updateMe', summary: 'Update the current user (self-editable fields)', tag, body: user, data: key, unique: true,
    })),
    endpoint('patch', '/users/me/track/page', operation({
      id: 'trackPage', summary: 'Record the page the current user has open in the Studio (last_page)', tag, ...none,
      body: { type: 'object', required: ['last_page'], properties: { last_page: { type: 'string', maxLength: 255 } } },
    })),
    endpoint('post', '/users/me/tfa/generate', operation({
      id: 'generateTfa', summary: 'Generate a two-factor secret', tag, body: { type: 'object', properties: { password: str } }, data: TFA_SECRET,
    })),
    endpoint('post', '/users/me/tfa/enable', operation({
      id: 'enableTfa', summary: 'Enable two-factor authentication', tag, maybeEmpty: true, data: TFA_SECRET,
      description: '`{password}` answers the secret; `{secret, otp}` confirms a generated secret and answers 204.',
      body: { type: 'object', properties: { password: str, secret: str, otp: str } },
    })),
    endpoint('post', '/users/me/tfa/disable', operation({
      id: 'disableTfa', summary: 'Disable two-factor authentication', tag, ...none, body: { type: 'object', required: ['otp'], properties: { otp: str } },
    })),
    endpoint('post', '/users/invite', operation({
      id: 'inviteUsers', summary: 'Invite users by email', tag, ...none,
      body: {
        type: 'object', required: ['email', 'role'],
        properties: { email: { oneOf: [str, arrayOf(str)] }, role: { type: 'string', format: 'uuid' }, invite_url: str },
      },
    })),
    endpoint('post', '/users/invite/accept', operation({
      id: 'acceptInvite', summary: 'Accept an invitation', tag, ...none, anonymous: true,
      body: { type: 'object', required: ['token', 'password'], properties: { token: str, password: str } },
    })),
    endpoint('post', '/users/register', operation({
      id: 'registerUser', summary: 'Register (public registration)', tag, ...none, anonymous: true,
      body: { type: 'object', required: ['email', 'password'], properties: { email: str, password: str, first_name: str, last_name: str, verification_url: str } },
    })),
    endpoint('get', '/users/register/verify-email', operation({
      id: 'verifyRegistration', summary: 'Verify a registration email', tag, ...none, anonymous: true,
      parameters: [{ name: 'token', in: 'query', required: true, schema: str }],
    })),
    endpoint('get', '/users/{id}', operation({ id: 'readSingleUsers', summary: 'Read a user', tag, parameters: [id, ...ONE_PARAMETERS], data: user, pathParams: true })),
    endpoint('patch', '/users/{id}', operation({
      id: 'updateSingleUsers', summary: 'Update a user', tag, parameters: [id], body: user, data: key, pathParams: true, unique: true,
    })),
    endpoint('delete', '/users/{id}', operation({ id: 'deleteSingleUsers', summary: 'Delete a user', tag, parameters: [id], ...none, pathParams: true })),
    endpoint('post', '/users/{id}/tfa/disable', operation({
      id: 'disableUserTfa', summary: 'Disable two-factor authentication of a user (admin)', tag, parameters: [id], ...none, pathParams: true,
    })),
  ];
}

export function accessEndpoints(ctx: SystemContext): Endpoint[] {
  return [
    ...users(ctx),
    ...recordRoutes(ctx, { path: 'roles', collection: 'svc_roles', tag: 'Roles', stem: 'Roles', noun: 'role' }),
    ...recordRoutes(ctx, { path: 'policies', collection: 'svc_policies', tag: 'Policies', stem: 'Policies', noun: 'policy' }),
    endpoint('get', '/policies/me/globals', operation({
      id: 'readMyPolicyGlobals', summary: 'The caller\'s flags merged over its policies', tag: 'Policies',
      data: {
        type: 'object', required: ['app_access', 'admin_access', 'enforce_tfa'],
        properties: { app_access: { type: 'boolean' }, admin_access: { type: 'boolean' }, enforce_tfa: { type: 'boolean' } },
      },
    })),
    endpoint('get', '/permissions/me', operation({
      id: 'readMyPermissions', summary: 'Permissions that apply to the caller', tag: 'Permissions',
      data: { type: 'object', description: 'Collection -> action -> access', additionalProperties: freeObject() },
    })),
    endpoint('get', '/permissions/as/{user}', operation({
      id: 'readPermissionsAsUser', summary: 'What a user would get: their roles, policies, globals, app permissions and permissions', tag: 'Permissions',
      description: 'Admin only. `permissions` is exactly what GET /permissions/me answers when that user calls it, computed by the same '
        + 'resolver for the client address `ip` (default: the caller\'s own; policies limited by `ip_access` count only from inside '
        + 'their ranges). Nothing is written and no token is made: this is not impersonation.',
      parameters: [
        pathParam('user', 'User id', ctx.key('svc_users')),
        { name: 'ip', in: 'query', required: false, description: 'Client address to evaluate ip_access for', schema: str },
      ],
      pathParams: true,
      data: VIEW_AS,
    })),
    ...recordRoutes(ctx, { path: 'permissions', collection: 'svc_permissions', tag: 'Permissions', stem: 'Permissions', noun: 'permission' }),
    ...recordRoutes(ctx, { path: 'access', collection: 'svc_access', tag: 'Access', stem: 'Access', noun: 'access link' }),
    endpoint('get', '/app-permissions/me', operation({
      id: 'readMyAppPermissions', summary: 'App (module) permissions of the caller', tag: 'App permissions',
      data: arrayOf({ type: 'string', description: 'module:action, e.g. versioning:view' }),
    })),
    ...recordRoutes(ctx, { path: 'app-permissions', collection: 'svc_app_permissions', tag: 'App permissions', stem: 'AppPermissions', noun: 'app permission' }),
  ];
}
