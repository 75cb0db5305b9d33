/** External sign-on provider configuration, from either side (core/auth/sso/types.ts):
 * - the environment, parsed once at start-up: AUTH_PROVIDERS=google,corp and AUTH_<NAME>_<SETTING> (Directus' names);
 *   a bad value stops the start with an error naming the variable;
 * - a runtime record's `value` (svc_extension_settings, extension_key `system_auth_provider`), camelCase keys;
 *   a bad value is a 400 naming `value.<key>`.
 * Both go through one normaliser, so a setting means the same thing whichever way it is given. */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InvalidPayloadError } from '../../errors.ts';
import { readIdpMetadata } from './saml-metadata.ts';
import type { LdapProviderConfig, OAuthProviderConfig, SamlProviderConfig, SsoDriverName, SsoProviderConfig } from './types.ts';

type Env = Record<string, string | undefined>;

export const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const DRIVERS: readonly SsoDriverName[] = ['openid', 'oauth2', 'ldap', 'saml'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SCOPES = ['base', 'one', 'sub'] as const;

const COMMON_KEYS = ['driver', 'label', 'icon', 'allowPublicRegistration', 'defaultRoleId', 'syncUserInfo', 'roleMapping'];
const OAUTH_KEYS = [...COMMON_KEYS, 'clientId', 'clientSecret', 'issuerUrl', 'authorizeUrl', 'accessUrl', 'profileUrl', 'scope',
  'identifierKey', 'emailKey', 'firstNameKey', 'lastNameKey', 'groupClaimName', 'redirectAllowList'];
const LDAP_KEYS = [...COMMON_KEYS, 'clientUrl', 'bindDn', 'bindPassword', 'userDn', 'userAttribute', 'userScope', 'mailAttribute',
  'firstNameAttribute', 'lastNameAttribute', 'groupDn', 'groupAttribute', 'groupScope', 'startTls', 'tls'];
const SAML_KEYS = [...COMMON_KEYS, 'idpMetadata', 'idpSsoUrl', 'idpCert', 'spEntityId', 'identifierKey', 'emailKey',
  'firstNameKey', 'lastNameKey', 'groupClaimName', 'redirectAllowList'];
/** Flat forms of `tls` (the environment's AUTH_<NAME>_TLS_REJECT_UNAUTHORIZED and _TLS_CA). */
const FLAT_TLS_KEYS = ['tlsRejectUnauthorized', 'tlsCa'];

/** Where settings come from: a camelCase key's raw value, and how a bad one is reported. */
interface Source {
  kind: 'env' | 'settings';
  get(key: string): unknown;
  fail(key: string, message: string): never;
  /** A record's keys, checked against the driver's settings (the environment's other variables are not ours). */
  keys?: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(src: Source, key: string): string | null {
  const v = src.get(key);
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') src.fail(key, 'must be a string');
  return v;
}

function required(src: Source, key: string, why: string): string {
  const v = str(src, key);
  if (v === null || v.trim() === '') src.fail(key, `is required ${why}`);
  return v;
}

function bool(src: Source, key: string, fallback: boolean, v: unknown = src.get(key)): boolean {
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return src.fail(key, 'must be true or false');
}

function httpUrl(src: Source, key: string, value: string): string {
  let url: URL;
  try { url = new URL(value); } catch { return src.fail(key, 'must be an absolute URL'); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') src.fail(key, 'must be an http(s) URL');
  return value;
}

function list(src: Source, key: string): string[] {
  const v = src.get(key);
  if (v === undefined || v === null || v === '') return [];
  const items = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v : src.fail(key, 'must be a list of URLs');
  return items.map((item) => {
    if (typeof item !== 'string') src.fail(key, 'must be a list of URLs');
    return httpUrl(src, key, item.trim());
  }).filter((s) => s !== '');
}

function roleMapping(src: Source, key: string): Record<string, string> {
  let v = src.get(key);
  if (v === undefined || v === null || v === '') return {};
  if (typeof v === 'string') {
    try { v = JSON.parse(v); } catch { src.fail(key, 'must be a JSON object of group name -> role id'); }
  }
  if (!isRecord(v)) src.fail(key, 'must be an object of group name -> role id');
  const out: Record<string, string> = {};
  for (const [group, role] of Object.entries(v)) {
    if (typeof role !== 'string' || !UUID.test(role)) src.fail(key, `maps "${group}" to something that is not a role id`);
    out[group] = role;
  }
  return out;
}

function oneOf<T extends string>(src: Source, key: string, allowed: readonly T[], fallback: T): T {
  const v = str(src, key) ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) src.fail(key, `must be one of ${allowed.join(', ')}`);
  return v as T;
}

function roleId(src: Source, key: string): string | null {
  const v = str(src, key);
  if (v !== null && !UUID.test(v)) src.fail(key, 'must be a role id (uuid)');
  return v;
}

/** PEM text as is; from the environment also a path to a PEM file (read now, so a missing file stops the start). */
function tlsCa(src: Source, raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') return src.fail('tlsCa', 'must be PEM text');
  if (raw.includes('-----BEGIN')) return raw;
  if (src.kind !== 'env') return src.fail('tlsCa', 'must be PEM text');
  try { return readFileSync(raw, 'utf8'); } catch { return src.fail('tlsCa', `names a file that can't be read (${raw})`); }
}

function buildProvider(name: string, src: Source): SsoProviderConfig {
  const driver = str(src, 'driver');
  if (driver === null || !(DRIVERS as readonly string[]).includes(driver)) src.fail('driver', `must be one of ${DRIVERS.join(', ')}`);
  const keys = driver === 'ldap' ? LDAP_KEYS : driver === 'saml' ? SAML_KEYS : OAUTH_KEYS;
  for (const k of src.keys ?? []) {
      if (!keys.includes(k) && !(driver === 'ldap' && FLAT_TLS_KEYS.includes(k))) src.fail(k, `is not a setting of driver ${driver}`);
  }
  const common = {
    name,
    label: str(src, 'label') ?? name.charAt(0).toUpperCase() + name.slice(1),
    icon: str(src, 'icon'),
    allowPublicRegistration: bool(src, 'allowPublicRegistration', false),
    defaultRoleId: roleId(src, 'defaultRoleId'),
    syncUserInfo: bool(src, 'syncUserInfo', false),
    roleMapping: roleMapping(src, 'roleMapping'),
    source: src.kind,
  };
  if (driver === 'ldap') {
    const clientUrl = required(src, 'clientUrl', 'for driver ldap');
    if (!/^ldaps?:\/\/[^/\s]/i.test(clientUrl)) src.fail('clientUrl', 'must be an ldap:// or ldaps:// URL');
    const tls = src.get('tls');
    const tlsIn = isRecord(tls) ? tls : {};
    if (tls !== undefined && tls !== null && !isRecord(tls)) src.fail('tls', 'must be an object {rejectUnauthorized, ca}');
    const rejectRaw = tlsIn.rejectUnauthorized ?? src.get('tlsRejectUnauthorized');
    const config: LdapProviderConfig = {
      ...common,
      driver,
      clientUrl,
      bindDn: str(src, 'bindDn'),
      bindPassword: str(src, 'bindPassword'),
      userDn: required(src, 'userDn', 'for driver ldap'),
      userAttribute: str(src, 'userAttribute') ?? 'cn',
      userScope: oneOf(src, 'userScope', SCOPES, 'one'),
      mailAttribute: str(src, 'mailAttribute') ?? 'mail',
      firstNameAttribute: str(src, 'firstNameAttribute') ?? 'givenName',
      lastNameAttribute: str(src, 'lastNameAttribute') ?? 'sn',
      groupDn: str(src, 'groupDn'),
      groupAttribute: str(src, 'groupAttribute') ?? 'member',
      groupScope: oneOf(src, 'groupScope', SCOPES, 'one'),
      startTls: bool(src, 'startTls', false),
      tls: {
        rejectUnauthorized: bool(src, 'tlsRejectUnauthorized', true, rejectRaw),
        ca: tlsCa(src, tlsIn.ca ?? src.get('tlsCa')),
      },
    };
    if ((config.bindDn === null) !== (config.bindPassword === null)) src.fail('bindPassword', 'and bindDn go together: give both, or neither to bind as the user');
    return config;
  }
  if (driver === 'saml') return samlProvider(src, common);
  const openid = driver === 'openid';
  const config: OAuthProviderConfig = {
    ...common,
    driver: driver as 'openid' | 'oauth2',
    clientId: required(src, 'clientId', `for driver ${driver}`),
    clientSecret: required(src, 'clientSecret', `for driver ${driver}`),
    issuerUrl: openid ? httpUrl(src, 'issuerUrl', required(src, 'issuerUrl', 'for driver openid')) : null,
    authorizeUrl: openid ? null : httpUrl(src, 'authorizeUrl', required(src, 'authorizeUrl', 'for driver oauth2')),
    accessUrl: openid ? null : httpUrl(src, 'accessUrl', required(src, 'accessUrl', 'for driver oauth2')),
    profileUrl: openid ? null : httpUrl(src, 'profileUrl', required(src, 'profileUrl', 'for driver oauth2')),
    scope: str(src, 'scope') ?? (openid ? 'openid profile email' : 'email'),
    identifierKey: str(src, 'identifierKey') ?? (openid ? 'sub' : 'id'),
    emailKey: str(src, 'emailKey') ?? 'email',
    firstNameKey: str(src, 'firstNameKey') ?? (openid ? 'given_name' : 'first_name'),
    lastNameKey: str(src, 'lastNameKey') ?? (openid ? 'family_name' : 'last_name'),
    groupClaimName: str(src, 'groupClaimName') ?? 'groups',
    redirectAllowList: list(src, 'redirectAllowList'),
  };
  return config;
}

/** The IdP metadata XML; from the environment also a path to the file (read now, so a missing file stops the start). */
function idpMetadata(src: Source): string | null {
  const raw = str(src, 'idpMetadata');
  if (raw === null) return null;
  let xml = raw;
  if (!raw.trimStart().startsWith('<')) {
    if (src.kind !== 'env') src.fail('idpMetadata', 'must be the metadata XML');
    try { xml = readFileSync(raw, 'utf8'); } catch { src.fail('idpMetadata', `names a file that can't be read (${raw})`); }
  }
  try { readIdpMetadata(xml); } catch (err) { src.fail('idpMetadata', (err as Error).message); }
  return xml;
}

function pemCertificate(src: Source, key: string): string {
  const pem = required(src, key, 'for driver saml without idpMetadata');
  try { new X509Certificate(pem); } catch { src.fail(key, 'must be a PEM certificate (-----BEGIN CERTIFICATE-----)'); }
  return pem;
}

function samlProvider(src: Source, common: Omit<SamlProviderConfig, 'driver' | 'idpMetadata' | 'idpSsoUrl' | 'idpCert' | 'spEntityId'
  | 'identifierKey' | 'emailKey' | 'firstNameKey' | 'lastNameKey' | 'groupClaimName' | 'redirectAllowList'>): SamlProviderConfig {
  const metadata = idpMetadata(src);
  if (metadata !== null && (str(src, 'idpSsoUrl') !== null || str(src, 'idpCert') !== null)) {
    src.fail('idpMetadata', 'and idpSsoUrl/idpCert exclude each other: give the metadata, or the SSO URL and the certificate');
  }
  return {
    ...common,
    driver: 'saml',
    idpMetadata: metadata,
    idpSsoUrl: metadata === null ? httpUrl(src, 'idpSsoUrl', required(src, 'idpSsoUrl', 'for driver saml without idpMetadata')) : null,
    idpCert: metadata === null ? pemCertificate(src, 'idpCert') : null,
    spEntityId: str(src, 'spEntityId'),
    identifierKey: str(src, 'identifierKey'),
    emailKey: str(src, 'emailKey') ?? 'email',
    firstNameKey: str(src, 'firstNameKey') ?? 'givenName',
    lastNameKey: str(src, 'lastNameKey') ?? 'sn',
    groupClaimName: str(src, 'groupClaimName') ?? 'groups',
    redirectAllowList: list(src, 'redirectAllowList'),
  };
}

/** AUTH_<NAME>_<SETTING> for a camelCase setting: clientId -> AUTH_GOOGLE_CLIENT_ID. */
export function envName(provider: string, key: string): string {
  return `AUTH_${provider.toUpperCase()}_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/** The providers of AUTH_PROVIDERS; throws an Error naming the variable at fault. */
export function parseSsoEnv(env: Env): SsoProviderConfig[] {
  const names = (env.AUTH_PROVIDERS ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const seen = new Set<string>();
  return names.map((name) => {
    if (!PROVIDER_NAME.test(name)) {
      throw new Error(`AUTH_PROVIDERS: "${name}" is not a provider name (lower-case letters, digits, "-" and "_").`);
    }
    if (name === 'default') throw new Error('AUTH_PROVIDERS: "default" is the built-in password login, not a provider name.');
    if (seen.has(name)) throw new Error(`AUTH_PROVIDERS names "${name}" twice.`);
    seen.add(name);
    return buildProvider(name, {
      kind: 'env',
      get: (key) => env[envName(name, key)],
      fail: (key, message) => { throw new Error(`${envName(name, key)} ${message}.`); },
    });
  });
}

/** A runtime record's value (plain, secrets decrypted) as a provider; 400 INVALID_PAYLOAD naming `value.<key>`. */
export function parseProviderRecord(name: string, value: unknown): SsoProviderConfig {
  if (!isRecord(value)) throw new InvalidPayloadError('"value" is required and must be an object.');
  return buildProvider(name, {
    kind: 'settings',
    get: (key) => value[key],
    keys: Object.keys(value),
    fail: (key, message) => { throw new InvalidPayloadError(`"value.${key}" ${message}.`); },
  });
}

/** The record form of a provider (what parseProviderRecord reads back): camelCase, without name and source. */
export function providerRecordValue(config: SsoProviderConfig): Record<string, unknown> {
  const { name: _name, source: _source, ...rest } = config;
  return rest;
}
