/** The LDAP driver of external sign-on (Directus' LDAP driver is the model): find the person's entry with the service
 * account (or bind directly when there is none), verify the password with a bind as that entry, read the profile and
 * the groups. Errors: InvalidCredentialsError for an unknown person or a wrong password alike, UserSuspendedError for
 * a locked (OpenLDAP ppolicy) or disabled (Active Directory) account, ServiceUnavailableError when the directory
 * cannot be reached or refuses the service account. */
import { isIP } from 'node:net';
import tls from 'node:tls';
import { Client, EqualityFilter, ResultCodeError, SizeLimitExceededError, type Entry } from 'ldapts';
import { InvalidCredentialsError, ServiceUnavailableError, UserSuspendedError } from '../../errors.ts';
import type { ExternalProfile, LdapProviderConfig } from './types.ts';

/** Connect, TLS handshake and each operation: a hung directory must not hang a sign-in. */
const TIMEOUT_MS = 5_000;
/** userAccountControl ACCOUNTDISABLE (Active Directory). */
const AD_ACCOUNT_DISABLE = 0x2;
/** Result codes of a refused user bind: invalidCredentials, inappropriateAuthentication, invalidDNSyntax (a direct
 * bind's DN built from what was typed), unwillingToPerform (e.g. a server refusing unauthenticated binds). */
const REFUSED_BIND = new Set([49, 48, 34, 53]);

export async function ldapAuthenticate(config: LdapProviderConfig, identifier: string, password: string): Promise<ExternalProfile> {
  // An empty password would be an LDAP "unauthenticated bind", which many servers accept as success: refused before
  // anything is sent.
  if (typeof identifier !== 'string' || identifier === '' || typeof password !== 'string' || password === '') {
    throw new InvalidCredentialsError();
  }
  let client: Client | undefined;
  try {
    client = createClient(config);
    if (config.startTls && !isLdaps(config)) await startTls(client, config);
    return config.bindDn
      ? await withServiceAccount(client, config, { dn: config.bindDn, password: config.bindPassword ?? '' }, identifier, password)
      : await withDirectBind(client, config, identifier, password);
  } catch (err) {
    if (err instanceof InvalidCredentialsError || err instanceof UserSuspendedError || err instanceof ServiceUnavailableError) throw err;
    throw unavailable(err);
  } finally {
    await client?.unbind().catch(() => undefined);
  }
}

function isLdaps(config: LdapProviderConfig): boolean {
  return config.clientUrl.toLowerCase().startsWith('ldaps:');
}

function tlsOptionsOf(config: LdapProviderConfig): tls.ConnectionOptions {
  return { rejectUnauthorized: config.tls.rejectUnauthorized, ...(config.tls.ca ? { ca: config.tls.ca } : {}) };
}

/** Connects lazily, on the first operation. */
function createClient(config: LdapProviderConfig): Client {
  return new Client({
    url: config.clientUrl,
    timeout: TIMEOUT_MS,
    connectTimeout: TIMEOUT_MS,
    // Only for ldaps://: ldapts opens a TLS connection whenever tlsOptions is set, which StartTLS must not.
    ...(isLdaps(config) ? { tlsOptions: tlsOptionsOf(config) } : {}),
    createSecureConnection: secureConnectWithin(TIMEOUT_MS),
  });
}

async function startTls(client: Client, config: LdapProviderConfig): Promise<void> {
  // The certificate is checked against the URL's host (tls.connect over an existing socket assumes localhost).
  const host = new URL(config.clientUrl).hostname.replace(/^\[|\]$/g, '');
  await client.startTLS({ ...tlsOptionsOf(config), host, ...(isIP(host) ? {} : { servername: host }) });
}

/** tls.connect with a handshake deadline: ldapts' connectTimeout covers ldaps://, nothing covers StartTLS. */
function secureConnectWithin(ms: number): typeof tls.connect {
  return ((...args: unknown[]) => {
    const socket = (tls.connect as (...a: unknown[]) => tls.TLSSocket)(...args);
    const timer = setTimeout(() => socket.destroy(new Error('TLS handshake timed out')), ms);
    timer.unref();
    socket.once('secureConnect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  }) as typeof tls.connect;
}

interface ServiceAccount { dn: string; password: string }

async function withServiceAccount(
  client: Client, config: LdapProviderConfig, service: ServiceAccount, identifier: string, password: string,
): Promise<ExternalProfile> {
  await bindService(client, service);
  let found: Entry[];
  try {
    // An EqualityFilter carries the value as one BER string: `*)(uid=*` is a literal, never filter syntax.
    ({ searchEntries: found } = await client.search(config.userDn, {
      scope: config.userScope,
      filter: new EqualityFilter({ attribute: config.userAttribute, value: identifier }),
      attributes: profileAttributes(config),
      sizeLimit: 2,
    }));
  } catch (err) {
    if (err instanceof SizeLimitExceededError) throw new InvalidCredentialsError();
    throw err;
  }
  // No one, or an identifier that is not unique: refused the same way.
  if (found.length !== 1) throw new InvalidCredentialsError();
  const entry = found[0];

  try {
    await client.bind(entry.dn, password);
  } catch (err) {
    if (!refusedBind(err)) throw err;
    // A locked account fails to bind even with the right password (ppolicy answers 49, AD too): look again with
    // the service account, as this very attempt may have locked it.
    await bindService(client, service);
    const now = await readEntry(client, entry.dn, config).catch(() => null);
    if (now && (ppolicyLocked(now) || adDisabled(now))) throw new UserSuspendedError();
    throw new InvalidCredentialsError();
  }
  // ppolicy accepted the bind, so a pwdAccountLockedTime still present has expired; AD's disabled flag holds.
  if (adDisabled(entry)) throw new UserSuspendedError();
  await bindService(client, service);
  return profile(entry, config, await groupsOf(client, config, entry.dn));
}

async function withDirectBind(client: Client, config: LdapProviderConfig, identifier: string, password: string): Promise<ExternalProfile> {
  const dn = `${config.userAttribute}=${escapeDnValue(identifier)},${config.userDn}`;
  try {
    await client.bind(dn, password);
  } catch (err) {
    // Without a service account the lock attributes cannot be read after a refused bind: a locked account reads as
    // invalid credentials here.
    if (refusedBind(err)) throw new InvalidCredentialsError();
    throw err;
  }
  const entry = await readEntry(client, dn, config);
  if (!entry) throw new ServiceUnavailableError('The LDAP directory does not let a signed-in user read their own entry.');
  if (adDisabled(entry)) throw new UserSuspendedError();
  return profile(entry, config, await groupsOf(client, config, entry.dn));
}

async function bindService(client: Client, service: ServiceAccount): Promise<void> {
  try {
    await client.bind(service.dn, service.password);
  } catch (err) {
    if (err instanceof ResultCodeError) {
      throw new ServiceUnavailableError('The LDAP directory refused the service account.', `LDAP result ${err.code}`);
    }
    throw err;
  }
}

function profileAttributes(config: LdapProviderConfig): string[] {
  return [config.mailAttribute, config.firstNameAttribute, config.lastNameAttribute, 'pwdAccountLockedTime', 'userAccountControl'];
}

async function readEntry(client: Client, dn: string, config: LdapProviderConfig): Promise<Entry | null> {
  const { searchEntries } = await client.search(dn, { scope: 'base', attributes: profileAttributes(config) });
  return searchEntries[0] ?? null;
}

async function groupsOf(client: Client, config: LdapProviderConfig, dn: string): Promise<string[]> {
  if (!config.groupDn) return [];
  const { searchEntries } = await client.search(config.groupDn, {
    scope: config.groupScope,
    filter: new EqualityFilter({ attribute: config.groupAttribute, value: dn }),
    attributes: ['cn'],
  });
  return searchEntries.map((g) => first(g, 'cn')).filter((cn): cn is string => cn !== null);
}

function profile(entry: Entry, config: LdapProviderConfig, groups: string[]): ExternalProfile {
  return {
    identifier: entry.dn,
    email: first(entry, config.mailAttribute),
    emailVerified: true,
    firstName: first(entry, config.firstNameAttribute),
    lastName: first(entry, config.lastNameAttribute),
    groups,
    authData: { dn: entry.dn },
  };
}

/** The first value of an attribute; attribute types are case-insensitive (a server may answer `givenName` to `givenname`). */
function first(entry: Entry, attribute: string): string | null {
  const key = Object.keys(entry).find((k) => k !== 'dn' && k.toLowerCase() === attribute.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  const one = Array.isArray(value) ? value[0] : value;
  if (one === undefined) return null;
  const text = Buffer.isBuffer(one) ? one.toString('utf8') : one;
  return text === '' ? null : text;
}

function ppolicyLocked(entry: Entry): boolean {
  return first(entry, 'pwdAccountLockedTime') !== null;
}

function adDisabled(entry: Entry): boolean {
  const uac = first(entry, 'userAccountControl');
  return uac !== null && /^-?\d+$/.test(uac) && (Number(uac) & AD_ACCOUNT_DISABLE) !== 0;
}

function refusedBind(err: unknown): boolean {
  return err instanceof ResultCodeError && REFUSED_BIND.has(err.code);
}

/** An attribute value inside a DN (RFC 4514 section 2.4). */
function escapeDnValue(value: string): string {
  const chars = [...value];
  return chars.map((ch, i) => {
    if (ch === '\0') return '\\00';
    if ('"+,;<>\\='.includes(ch)) return `\\${ch}`;
    if (i === 0 && (ch === '#' || ch === ' ')) return `\\${ch}`;
    if (i === chars.length - 1 && ch === ' ') return '\\ ';
    return ch;
  }).join('');
}

/** The reason names the failure (refused, timed out, certificate), never a DN or a password. */
function unavailable(err: unknown): ServiceUnavailableError {
  let reason = 'unknown error';
  if (err instanceof ResultCodeError) reason = `LDAP result ${err.code}`;
  else if (err instanceof Error) reason = (err as NodeJS.ErrnoException).code ?? err.message.split('\n')[0];
  return new ServiceUnavailableError('The LDAP directory is unavailable.', reason);
}
