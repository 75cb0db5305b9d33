/** AUTH_PROVIDERS / AUTH_<NAME>_* parsing (core/auth/sso/config.ts): every setting, defaults, and a clear start-up
 * error naming the variable at fault. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseProviderRecord, parseSsoEnv } from '../../core/auth/sso/config.ts';
import { certToPem, readIdpMetadata } from '../../core/auth/sso/saml-metadata.ts';
import { certBody, makeKeyPair } from '../helpers/saml-idp.ts';

const ROLE = '7c2f6c1e-5f55-4a43-9f43-2a8f3d1f0b11';
const base = {
  AUTH_PROVIDERS: 'corp',
  AUTH_CORP_DRIVER: 'openid',
  AUTH_CORP_CLIENT_ID: 'id',
  AUTH_CORP_CLIENT_SECRET: 'secret',
  AUTH_CORP_ISSUER_URL: 'https://idp.example',
};

describe('parseSsoEnv', () => {
  it('no AUTH_PROVIDERS: none', () => {
    expect(parseSsoEnv({})).toEqual([]);
  });

  it('openid with defaults', () => {
    expect(parseSsoEnv(base)).toEqual([{
      name: 'corp', label: 'Corp', icon: null, allowPublicRegistration: false, defaultRoleId: null, syncUserInfo: false,
      roleMapping: {}, source: 'env', driver: 'openid', clientId: 'id', clientSecret: 'secret', issuerUrl: 'https://idp.example',
      authorizeUrl: null, accessUrl: null, profileUrl: null, scope: 'openid profile email', identifierKey: 'sub', emailKey: 'email',
      firstNameKey: 'given_name', lastNameKey: 'family_name', groupClaimName: 'groups', redirectAllowList: [],
    }]);
  });

  it.each([
    ['AUTH_CORP_LABEL', 'Corporate', { label: 'Corporate' }],
    ['AUTH_CORP_ICON', 'badge', { icon: 'badge' }],
    ['AUTH_CORP_SCOPE', 'openid groups', { scope: 'openid groups' }],
    ['AUTH_CORP_IDENTIFIER_KEY', 'oid', { identifierKey: 'oid' }],
    ['AUTH_CORP_EMAIL_KEY', 'upn', { emailKey: 'upn' }],
    ['AUTH_CORP_FIRST_NAME_KEY', 'fn', { firstNameKey: 'fn' }],
    ['AUTH_CORP_LAST_NAME_KEY', 'ln', { lastNameKey: 'ln' }],
    ['AUTH_CORP_GROUP_CLAIM_NAME', 'roles', { groupClaimName: 'roles' }],
    ['AUTH_CORP_ALLOW_PUBLIC_REGISTRATION', 'true', { allowPublicRegistration: true }],
    ['AUTH_CORP_SYNC_USER_INFO', 'true', { syncUserInfo: true }],
    ['AUTH_CORP_DEFAULT_ROLE_ID', ROLE, { defaultRoleId: ROLE }],
    ['AUTH_CORP_ROLE_MAPPING', JSON.stringify({ admins: ROLE }), { roleMapping: { admins: ROLE } }],
    ['AUTH_CORP_REDIRECT_ALLOW_LIST', 'https://a.example/x, https://b.example', { redirectAllowList: ['https://a.example/x', 'https://b.example'] }],
  ])('%s=%s', (key, value, expected) => {
    expect(parseSsoEnv({ ...base, [key]: value })[0]).toMatchObject(expected);
  });

  it('oauth2 endpoints', () => {
    const [p] = parseSsoEnv({
      AUTH_PROVIDERS: 'github', AUTH_GITHUB_DRIVER: 'oauth2', AUTH_GITHUB_CLIENT_ID: 'i', AUTH_GITHUB_CLIENT_SECRET: 's',
      AUTH_GITHUB_AUTHORIZE_URL: 'https://github.com/login/oauth/authorize', AUTH_GITHUB_ACCESS_URL: 'https://github.com/login/oauth/access_token',
      AUTH_GITHUB_PROFILE_URL: 'https://api.github.com/user',
    });
    expect(p).toMatchObject({ driver: 'oauth2', identifierKey: 'id', scope: 'email', issuerUrl: null, profileUrl: 'https://api.github.com/user' });
  });

  it('ldap with defaults and settings', () => {
    const ldap = { AUTH_PROVIDERS: 'dir', AUTH_DIR_DRIVER: 'ldap', AUTH_DIR_CLIENT_URL: 'ldap://127.0.0.1:389', AUTH_DIR_USER_DN: 'ou=people,dc=x' };
    expect(parseSsoEnv(ldap)[0]).toMatchObject({
      driver: 'ldap', bindDn: null, bindPassword: null, userAttribute: 'cn', userScope: 'one', mailAttribute: 'mail',
      firstNameAttribute: 'givenName', lastNameAttribute: 'sn', groupDn: null, groupAttribute: 'member', groupScope: 'one',
      startTls: false, tls: { rejectUnauthorized: true, ca: null },
    });
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(parseSsoEnv({
      ...ldap, AUTH_DIR_BIND_DN: 'cn=svc', AUTH_DIR_BIND_PASSWORD: 'pw', AUTH_DIR_USER_ATTRIBUTE: 'uid', AUTH_DIR_USER_SCOPE: 'sub',
      AUTH_DIR_MAIL_ATTRIBUTE: 'email', AUTH_DIR_FIRST_NAME_ATTRIBUTE: 'fn', AUTH_DIR_LAST_NAME_ATTRIBUTE: 'ln',
      AUTH_DIR_GROUP_DN: 'ou=groups,dc=x', AUTH_DIR_GROUP_ATTRIBUTE: 'uniqueMember', AUTH_DIR_GROUP_SCOPE: 'sub',
      AUTH_DIR_START_TLS: 'true', AUTH_DIR_TLS_REJECT_UNAUTHORIZED: 'false', AUTH_DIR_TLS_CA: pem,
    })[0]).toMatchObject({
      bindDn: 'cn=svc', bindPassword: 'pw', userAttribute: 'uid', userScope: 'sub', mailAttribute: 'email', firstNameAttribute: 'fn',
      lastNameAttribute: 'ln', groupDn: 'ou=groups,dc=x', groupAttribute: 'uniqueMember', groupScope: 'sub', startTls: true,
      tls: { rejectUnauthorized: false, ca: pem },
    });
  });

  it.each([
    [{ AUTH_CORP_DRIVER: 'cas' }, /AUTH_CORP_DRIVER must be one of openid, oauth2, ldap, saml/],
    [{ AUTH_CORP_DRIVER: undefined }, /AUTH_CORP_DRIVER/],
    [{ AUTH_CORP_CLIENT_ID: undefined }, /AUTH_CORP_CLIENT_ID is required/],
    [{ AUTH_CORP_CLIENT_SECRET: '' }, /AUTH_CORP_CLIENT_SECRET is required/],
    [{ AUTH_CORP_ISSUER_URL: undefined }, /AUTH_CORP_ISSUER_URL is required/],
    [{ AUTH_CORP_ISSUER_URL: 'not a url' }, /AUTH_CORP_ISSUER_URL must be an absolute URL/],
    [{ AUTH_CORP_ROLE_MAPPING: '{bad json' }, /AUTH_CORP_ROLE_MAPPING must be a JSON object/],
    [{ AUTH_CORP_ROLE_MAPPING: '["a"]' }, /AUTH_CORP_ROLE_MAPPING/],
    [{ AUTH_CORP_ROLE_MAPPING: '{"g":"not-a-uuid"}' }, /AUTH_CORP_ROLE_MAPPING maps "g"/],
    [{ AUTH_CORP_DEFAULT_ROLE_ID: 'x' }, /AUTH_CORP_DEFAULT_ROLE_ID must be a role id/],
    [{ AUTH_CORP_ALLOW_PUBLIC_REGISTRATION: 'yes' }, /AUTH_CORP_ALLOW_PUBLIC_REGISTRATION must be true or false/],
    [{ AUTH_CORP_REDIRECT_ALLOW_LIST: 'javascript:x' }, /AUTH_CORP_REDIRECT_ALLOW_LIST must be an http\(s\) URL/],
    [{ AUTH_PROVIDERS: 'Corp' }, /AUTH_PROVIDERS: "Corp" is not a provider name/],
    [{ AUTH_PROVIDERS: 'default' }, /AUTH_PROVIDERS: "default"/],
    [{ AUTH_PROVIDERS: 'corp,corp' }, /names "corp" twice/],
  ])('%o -> error', (patch, message) => {
    expect(() => parseSsoEnv({ ...base, ...patch } as Record<string, string | undefined>)).toThrow(message);
  });

  it.each([
    [{ AUTH_DIR_CLIENT_URL: 'http://x' }, /AUTH_DIR_CLIENT_URL must be an ldap/],
    [{ AUTH_DIR_USER_DN: undefined }, /AUTH_DIR_USER_DN is required/],
    [{ AUTH_DIR_USER_SCOPE: 'all' }, /AUTH_DIR_USER_SCOPE must be one of base, one, sub/],
    [{ AUTH_DIR_BIND_DN: 'cn=svc' }, /AUTH_DIR_BIND_PASSWORD/],
    [{ AUTH_DIR_TLS_CA: '/nonexistent/ca.pem' }, /AUTH_DIR_TLS_CA names a file that can't be read/],
  ])('ldap %o -> error', (patch, message) => {
    const ldap = { AUTH_PROVIDERS: 'dir', AUTH_DIR_DRIVER: 'ldap', AUTH_DIR_CLIENT_URL: 'ldap://h', AUTH_DIR_USER_DN: 'dc=x' };
    expect(() => parseSsoEnv({ ...ldap, ...patch } as Record<string, string | undefined>)).toThrow(message);
  });
});

describe('SAML provider configuration', () => {
  const { cert } = makeKeyPair('config-test-idp');
  const body = certBody(cert);
  const metadata = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example/e"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
  const saml = { AUTH_PROVIDERS: 'corp', AUTH_CORP_DRIVER: 'saml' };

  it('reads the metadata from text or a file, with the defaults', () => {
    const dir = mkdtempSync(join(tmpdir(), 'saml-md-'));
    writeFileSync(join(dir, 'idp.xml'), metadata);
    const [fromFile] = parseSsoEnv({ ...saml, AUTH_CORP_IDP_METADATA: join(dir, 'idp.xml') });
    expect(fromFile).toMatchObject({ driver: 'saml', idpMetadata: metadata, idpSsoUrl: null, idpCert: null, spEntityId: null,
      identifierKey: null, emailKey: 'email', firstNameKey: 'givenName', lastNameKey: 'sn', groupClaimName: 'groups' });
    expect(readIdpMetadata(metadata)).toEqual({ entityId: 'https://idp.example/e', ssoUrl: 'https://idp.example/sso', certs: [certToPem(body)] });
    const [direct] = parseSsoEnv({ ...saml, AUTH_CORP_IDP_SSO_URL: 'https://idp.example/sso', AUTH_CORP_IDP_CERT: cert, AUTH_CORP_IDENTIFIER_KEY: 'uid' });
    expect(direct).toMatchObject({ idpMetadata: null, idpSsoUrl: 'https://idp.example/sso', idpCert: cert, identifierKey: 'uid' });
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [{}, /AUTH_CORP_IDP_SSO_URL is required/],
    [{ AUTH_CORP_IDP_METADATA: '<nope' }, /AUTH_CORP_IDP_METADATA is not well-formed XML/],
    [{ AUTH_CORP_IDP_METADATA: metadata.replace('HTTP-Redirect', 'HTTP-POST') }, /AUTH_CORP_IDP_METADATA has no SingleSignOnService with the HTTP-Redirect binding/],
    [{ AUTH_CORP_IDP_METADATA: '/nonexistent/idp.xml' }, /AUTH_CORP_IDP_METADATA names a file that can't be read/],
    [{ AUTH_CORP_IDP_METADATA: metadata, AUTH_CORP_IDP_SSO_URL: 'https://idp.example/sso' }, /exclude each other/],
    [{ AUTH_CORP_IDP_SSO_URL: 'https://idp.example/sso', AUTH_CORP_IDP_CERT: 'not a cert' }, /AUTH_CORP_IDP_CERT must be a PEM certificate/],
  ])('saml %o -> error', (patch, message) => {
    expect(() => parseSsoEnv({ ...saml, ...patch } as Record<string, string | undefined>)).toThrow(message);
  });

  it('a runtime record takes the metadata as XML only, and refuses settings of other drivers', () => {
    expect(() => parseProviderRecord('corp', { driver: 'saml', idpMetadata: '/etc/idp.xml' })).toThrow(/value.idpMetadata" must be the metadata XML/);
    expect(() => parseProviderRecord('corp', { driver: 'saml', idpMetadata: metadata, clientId: 'x' })).toThrow(/value.clientId" is not a setting of driver saml/);
    expect(parseProviderRecord('corp', { driver: 'saml', idpMetadata: metadata })).toMatchObject({ driver: 'saml', source: 'settings' });
  });
});
