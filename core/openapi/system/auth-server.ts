/** /auth/*, /shares/auth, /server/*, /system/storage-providers, /graphql and /utils (GraphQL, metrics and
 * import/export, like every system operation, appear only when their routes are served: see document.ts). */
import { LIST_PARAMETERS, ONE_PARAMETERS } from '../components.ts';
import { operation } from '../operation.ts';
import type { SchemaObject } from '../types.ts';
import { arrayOf, endpoint, freeObject, pathParam, type Endpoint } from './endpoint.ts';

const str: SchemaObject = { type: 'string' };
const nullableString: SchemaObject = { type: 'string', nullable: true };
const MODE: SchemaObject = { type: 'string', enum: ['json', 'cookie', 'session'], description: 'Where the tokens go (default json)' };
const TOKENS: SchemaObject = {
  type: 'object',
  properties: { access_token: str, refresh_token: str, expires: { type: 'integer', description: 'Milliseconds' } },
};
const GRAPHQL_BODY: SchemaObject = {
  type: 'object', required: ['query'], properties: { query: str, variables: freeObject(), operationName: { type: 'string', nullable: true } },
};
const GRAPHQL_RESULT: SchemaObject = {
  type: 'object', properties: { data: { ...freeObject(), nullable: true }, errors: arrayOf(freeObject()) },
};

function auth(ctx: { record: (c: string) => SchemaObject }): Endpoint[] {
  const tag = 'Authentication';
  const none = { status: 204 as const };
  return [
    endpoint('post', '/auth/login', operation({
      id: 'login', summary: 'Log in with email and password', tag, anonymous: true, data: TOKENS,
      body: { type: 'object', required: ['email', 'password'], properties: { email: str, password: str, otp: str, mode: MODE } },
    })),
    endpoint('post', '/auth/refresh', operation({
      id: 'refresh', summary: 'Exchange a refresh token for new tokens', tag, anonymous: true, data: TOKENS, bodyRequired: false,
      body: { type: 'object', properties: { refresh_token: str, mode: MODE } },
    })),
    endpoint('post', '/auth/logout', operation({
      id: 'logout', summary: 'Revoke a refresh token', tag, anonymous: true, ...none, bodyRequired: false,
      body: { type: 'object', properties: { refresh_token: str, mode: MODE } },
    })),
    endpoint('get', '/auth/me', operation({ id: 'readAuthMe', summary: 'The current user', tag, parameters: ONE_PARAMETERS, data: ctx.record('svc_users') })),
    endpoint('post', '/auth/password/request', operation({
      id: 'requestPasswordReset', summary: 'Email a password reset link', tag, anonymous: true, ...none,
      body: { type: 'object', required: ['email'], properties: { email: str, reset_url: str } },
    })),
    endpoint('post', '/auth/password/reset', operation({
      id: 'resetPassword', summary: 'Set a new password with a reset token', tag, anonymous: true, ...none,
      body: { type: 'object', required: ['token', 'password'], properties: { token: str, password: str } },
    })),
    endpoint('post', '/auth/impersonate', operation({
      id: 'startImpersonation', summary: 'Act as another user', tag, data: TOKENS,
      body: { type: 'object', required: ['user'], properties: { user: { type: 'string', format: 'uuid' } } },
    })),
    endpoint('post', '/auth/impersonate/stop', operation({ id: 'stopImpersonation', summary: 'End an impersonation', tag, ...none })),
    endpoint('post', '/shares/auth', operation({
      id: 'shareLogin', summary: 'Log in with a share', tag: 'Shares', anonymous: true, data: TOKENS,
      body: { type: 'object', required: ['share'], properties: { share: { type: 'string', format: 'uuid' }, password: str, mode: MODE } },
    })),
  ];
}

function server(): Endpoint[] {
  const tag = 'Server';
  return [
    endpoint('get', '/server/ping', operation({ id: 'ping', summary: 'Liveness', tag, anonymous: true, media: { type: 'text/plain', schema: { type: 'string', enum: ['pong'] } } })),
    endpoint('get', '/server/health', operation({
      id: 'health', summary: 'Health: ok; warn (200) while the shared store does not answer; error (503) while the database does not', tag, anonymous: true, raw: true,
      data: {
        type: 'object', required: ['status'], properties: {
          status: { type: 'string', enum: ['ok', 'warn', 'error'] },
          checks: {
            type: 'object', description: 'Present when a check is not ok: its findings by check name (database, sharedStore)',
            additionalProperties: { type: 'array', items: { type: 'object', required: ['status', 'output'], properties: { status: { type: 'string', enum: ['warn', 'error'] }, output: str } } },
          },
        },
      },
    })),
    endpoint('get', '/server/info', operation({
      id: 'serverInfo', summary: 'Project information', tag, anonymous: true,
      data: {
        type: 'object',
        properties: {
          project: {
            type: 'object',
            description: 'The project and the public face of its sign-in page (svc_settings)',
            properties: {
              name: str, url: nullableString, node_env: str, descriptor: nullableString, color: nullableString,
              logo: { ...nullableString, description: 'svc_files id' }, public_foreground: { ...nullableString, description: 'svc_files id' },
              public_background: { ...nullableString, description: 'svc_files id' }, public_favicon: { ...nullableString, description: 'svc_files id' },
              public_note: nullableString, custom_css: nullableString, default_appearance: { type: 'string', enum: ['auto', 'light', 'dark'] },
              default_language: str, public_registration: { type: 'boolean' },
            },
          },
        },
      },
    })),
    endpoint('get', '/server/specs/oas', operation({
      id: 'openApiSpec', summary: 'This OpenAPI document (admin)', tag, raw: true, data: freeObject('OpenAPI 3.0 document'),
    })),
    endpoint('get', '/server/metrics', operation({
      id: 'metrics', summary: 'Prometheus metrics (admin)', tag,
      media: { type: 'text/plain', schema: str },
      extra: {
        404: {
          description: 'METRICS_ENABLED is false (body `{error}`, not the errors envelope)',
          content: { 'application/json': { schema: { type: 'object', properties: { error: str } } } },
        },
      },
    })),
  ];
}

/** An operation answering a 302 redirect instead of a body. */
function redirecting(spec: Parameters<typeof operation>[0], description: string) {
  const op = operation(spec);
  delete op.responses['200'];
  op.responses['302'] = { description };
  return op;
}

function sso(): Endpoint[] {
  const tag = 'Authentication';
  const provider = pathParam('provider', 'The provider name (AUTH_PROVIDERS, or a /system/auth-providers record)');
  const q = (name: string, description: string, schema: SchemaObject = str) => ({ name, in: 'query' as const, description, schema });
  const listed: SchemaObject = {
    type: 'object',
    properties: {
      data: arrayOf({ type: 'object', properties: { name: str, driver: { type: 'string', enum: ['openid', 'oauth2', 'ldap', 'saml'] }, label: str, icon: nullableString } }),
      disableDefault: { type: 'boolean' },
    },
  };
  const reasons = 'On failure the redirect carries `reason`: INVALID_CREDENTIALS, INVALID_PROVIDER, INVALID_TOKEN, USER_SUSPENDED, '
    + 'ACCOUNT_NOT_LINKED, IDENTITY_ALREADY_LINKED or SERVICE_UNAVAILABLE.';
  return [
    endpoint('get', '/auth', operation({ id: 'listAuthProviders', summary: 'The external sign-on providers', tag, anonymous: true, raw: true, data: listed })),
    endpoint('get', '/auth/login/{provider}', redirecting({
      id: 'startExternalLogin', summary: 'Start an OpenID Connect, OAuth 2.0 or SAML 2.0 sign-in', tag, anonymous: true, pathParams: true,
      parameters: [provider, q('redirect', 'Where to land afterwards: PUBLIC_URL\'s origin or the provider\'s allow-list (default PUBLIC_URL/admin/)'),
        { ...q('mode', 'session (default) or cookie'), schema: { type: 'string', enum: ['session', 'cookie'] } },
        q('link', 'A link token from POST /auth/link/{provider}')],
    }, 'To the identity provider (OAuth: sets the flow cookie; SAML: the AuthnRequest, HTTP-Redirect binding, with the flow in '
      + 'a signed RelayState). ' + reasons)),
    endpoint('get', '/auth/login/{provider}/callback', redirecting({
      id: 'finishExternalLogin', summary: 'The identity provider\'s return', tag, anonymous: true, pathParams: true, parameters: [provider],
    }, 'To the redirect of the flow, with the session (session mode) or refresh (cookie mode) cookie set. ' + reasons)),
    endpoint('post', '/auth/login/{provider}/callback', redirecting({
      id: 'samlAssertionConsumer', summary: 'The SAML Assertion Consumer Service (the IdP\'s HTTP-POST form)', tag, anonymous: true,
      pathParams: true, parameters: [provider],
      content: { 'application/x-www-form-urlencoded': {
        type: 'object', required: ['SAMLResponse', 'RelayState'],
        properties: { SAMLResponse: { ...str, description: 'The base64 Response' }, RelayState: { ...str, description: 'As sent with the AuthnRequest' } },
      } },
    }, 'To the redirect of the flow, with the session (session mode) or refresh (cookie mode) cookie set. ' + reasons)),
    endpoint('get', '/auth/login/{provider}/metadata', operation({
      id: 'samlServiceProviderMetadata', summary: 'The SAML service provider metadata to register at the IdP (entity id, ACS URL)', tag,
      anonymous: true, pathParams: true, parameters: [provider], media: { type: 'application/samlmetadata+xml', schema: str },
    })),
    endpoint('post', '/auth/login/{provider}', operation({
      id: 'ldapLogin', summary: 'Log in with LDAP directory credentials', tag, anonymous: true, data: TOKENS, pathParams: true, parameters: [provider],
      body: { type: 'object', required: ['identifier', 'password'], properties: { identifier: str, password: str, otp: str, mode: MODE } },
    })),
    endpoint('post', '/auth/link/{provider}', operation({
      id: 'linkExternalIdentity', summary: 'Link the current local account to a provider (password check)', tag, pathParams: true, parameters: [provider],
      body: { type: 'object', required: ['current_password'], properties: { current_password: str, redirect: str, identifier: str, password: str } },
      data: { type: 'object', properties: { url: { ...str, description: 'Redirect providers: open it to finish the link' }, provider: str, linked: { type: 'boolean' } } },
    })),
  ];
}

function authProviders(): Endpoint[] {
  const tag = 'Auth providers';
  const record: SchemaObject = {
    type: 'object',
    properties: { id: { type: 'integer' }, name: str, extension_key: str, value: freeObject('Provider configuration (camelCase, with driver); clientSecret and bindPassword answer "********"') },
  };
  const id = pathParam('id', 'GET: the provider name; PATCH and DELETE: the integer record id');
  const written: SchemaObject = { type: 'object', properties: { id: { type: 'integer' } } };
  const base = '/system/auth-providers';
  return [
    endpoint('get', base, operation({ id: 'readAuthProviders', summary: 'List runtime sign-on providers', tag, data: arrayOf(record) })),
    endpoint('post', base, operation({
      id: 'createAuthProvider', summary: 'Add a sign-on provider', tag, status: 201, data: written, unique: true,
      body: { type: 'object', required: ['name', 'value'], properties: { name: str, value: freeObject('Provider configuration') } },
    })),
    endpoint('get', `${base}/{id}`, operation({ id: 'readAuthProvider', summary: 'Read a sign-on provider by name', tag, parameters: [id], data: record, pathParams: true })),
    endpoint('patch', `${base}/{id}`, operation({
      id: 'updateAuthProvider', summary: 'Change a sign-on provider (sending "********" keeps a secret)', tag, parameters: [id], pathParams: true, data: written,
      body: { type: 'object', required: ['value'], properties: { value: freeObject() } },
    })),
    endpoint('delete', `${base}/{id}`, operation({ id: 'deleteAuthProvider', summary: 'Remove a sign-on provider', tag, parameters: [id], status: 204, pathParams: true })),
  ];
}

function storageProviders(): Endpoint[] {
  const tag = 'Storage providers';
  const provider: SchemaObject = {
    type: 'object',
    properties: { id: { type: 'integer' }, name: str, extension_key: str, value: freeObject('Driver configuration; secrets answer "********"') },
  };
  // One templated path (OpenAPI forbids two of the same shape): GET takes the name, PATCH and DELETE the record id.
  const id = pathParam('id', 'GET: the provider name; PATCH and DELETE: the integer record id');
  const written: SchemaObject = { type: 'object', properties: { id: { type: 'integer' } } };
  const base = '/system/storage-providers';
  return [
    endpoint('get', base, operation({ id: 'readStorageProviders', summary: 'List storage providers', tag, data: arrayOf(provider) })),
    endpoint('post', base, operation({
      id: 'createStorageProvider', summary: 'Add a storage provider', tag, status: 201, data: written, unique: true,
      body: { type: 'object', required: ['name', 'value'], properties: { name: str, value: freeObject('Driver configuration') } },
    })),
    endpoint('get', `${base}/{id}`, operation({
      id: 'readStorageProvider', summary: 'Read a storage provider by name', tag, parameters: [id], data: provider, pathParams: true,
    })),
    endpoint('patch', `${base}/{id}`, operation({
      id: 'updateStorageProvider', summary: 'Change a provider\'s configuration', tag, parameters: [id], pathParams: true, data: written,
      body: { type: 'object', required: ['value'], properties: { value: freeObject() } },
    })),
    endpoint('delete', `${base}/{id}`, operation({ id: 'deleteStorageProvider', summary: 'Remove a storage provider', tag, parameters: [id], status: 204, pathParams: true })),
  ];
}

function graphqlAndUtils(): Endpoint[] {
  const collection = pathParam('collection', 'Collection name');
  const tag = 'GraphQL';
  const getQuery = [
    { name: 'query', in: 'query' as const, required: true, schema: str },
    { name: 'variables', in: 'query' as const, description: 'JSON-encoded variables', schema: str },
    { name: 'operationName', in: 'query' as const, schema: str },
  ];
  const csvOrJson = { 'text/csv': str, 'application/json': { description: 'An array of items' } };
  return [
    endpoint('post', '/graphql', operation({ id: 'graphql', summary: 'GraphQL over the user collections', tag, body: GRAPHQL_BODY, data: GRAPHQL_RESULT, raw: true })),
    endpoint('get', '/graphql', operation({ id: 'graphqlGet', summary: 'GraphQL query in the query string', tag, parameters: getQuery, data: GRAPHQL_RESULT, raw: true })),
    endpoint('post', '/graphql/system', operation({ id: 'graphqlSystem', summary: 'GraphQL over the system collections', tag, body: GRAPHQL_BODY, data: GRAPHQL_RESULT, raw: true })),
    endpoint('get', '/graphql/system', operation({
      id: 'graphqlSystemGet', summary: 'GraphQL query over the system collections in the query string', tag, parameters: getQuery, data: GRAPHQL_RESULT, raw: true,
    })),
    endpoint('post', '/utils/import/{collection}', operation({
      id: 'importItems', summary: 'Import items from a CSV or JSON file', tag: 'Utilities', parameters: [collection], pathParams: true,
      description: 'One file part in multipart/form-data (its type or extension says CSV or JSON), or a raw CSV or JSON body. Answers 200 with an empty body.',
      content: {
        'multipart/form-data': { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } },
        ...csvOrJson,
      },
    })),
    endpoint('get', '/utils/export/{collection}', operation({
      id: 'exportItems', summary: 'Export items as a CSV or JSON attachment', tag: 'Utilities', pathParams: true,
      parameters: [collection, { name: 'format', in: 'query', schema: { type: 'string', enum: ['csv', 'json'] } }, ...LIST_PARAMETERS],
      media: { type: 'text/csv', schema: str },
      extra: { 200: { description: 'The items as an attachment', content: { 'text/csv': { schema: str }, 'application/json': { schema: { type: 'array', items: freeObject() } } } } },
    })),
    endpoint('get', '/realtime', operation({
      id: 'realtimeEvents', summary: 'Subscribe to a collection as Server-Sent Events', tag: 'Realtime',
      description: 'One subscription, as a WebSocket `subscribe` on /websocket (docs/realtime.md): `init` with the current rows, '
        + 'then `create`/`update`/`delete` events as the caller may read them, each with its id. A reconnect with Last-Event-ID '
        + 'replays what was missed within the retention, or sends `resync` then `init`.',
      parameters: [
        { name: 'collection', in: 'query', required: true, schema: str },
        { name: 'query', in: 'query', description: 'The query (fields, filter, sort, limit, search, deep, alias) as JSON', schema: str },
        { name: 'event', in: 'query', schema: { type: 'string', enum: ['create', 'update', 'delete'] } },
        { name: 'item', in: 'query', description: 'Only this primary key', schema: str },
        { name: 'since', in: 'query', description: 'Resume after this event id (as Last-Event-ID)', schema: str },
        { name: 'Last-Event-ID', in: 'header', schema: str },
      ],
      media: { type: 'text/event-stream', schema: str },
    })),
  ];
}

function extensions(ctx: { record: (c: string) => SchemaObject }): Endpoint[] {
  const tag = 'Extensions';
  const extension: SchemaObject = {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' }, enabled: { type: 'boolean' }, folder: str,
      source: { type: 'string', enum: ['local', 'registry', 'module'] }, bundle: { type: 'string', format: 'uuid', nullable: true },
      type: { type: 'string', enum: ['hook', 'endpoint'], nullable: true, description: 'From its manifest, as this process read it at boot' },
      description: { type: 'string', nullable: true, description: 'package.json description' },
      version: { type: 'string', nullable: true, description: 'package.json version' },
      status: { type: 'string', enum: ['loaded', 'failed', 'disabled', 'missing'], nullable: true, description: 'What this process did with it at boot (null: not known here)' },
      error: { type: 'string', nullable: true, description: 'Why it failed to load (admins only)' },
    },
  };
  return [
    endpoint('get', '/extensions', operation({ id: 'readExtensions', summary: 'Extensions loaded at boot', tag, data: arrayOf(extension) })),
    endpoint('get', '/extensions/{id}', operation({
      id: 'readExtension', summary: 'One extension', tag, parameters: [pathParam('id', 'Extension id', { type: 'string', format: 'uuid' })], data: extension, pathParams: true,
    })),
    endpoint('get', '/extension-settings', operation({
      id: 'readExtensionSettings', summary: 'Extension settings records (admin)', tag, data: arrayOf(ctx.record('svc_extension_settings')),
      parameters: [{ name: 'extension_key', in: 'query', description: 'Only records of this key (e.g. system_storage_provider)', schema: str }],
    })),
  ];
}

export function authServerEndpoints(ctx: { record: (c: string) => SchemaObject }): Endpoint[] {
  return [...auth(ctx), ...sso(), ...server(), ...storageProviders(), ...authProviders(), ...graphqlAndUtils(), ...extensions(ctx)];
}
