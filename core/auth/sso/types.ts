/** External sign-on (SPEC.md > svc_users provider/external_identifier/auth_data; svc_extension_settings key
 * `system_auth_provider`): the shapes every driver and the provider registry share. A provider comes from the
 * environment (AUTH_PROVIDERS, AUTH_<NAME>_*) or from a runtime record; both parse into these. */

export type SsoDriverName = 'openid' | 'oauth2' | 'ldap' | 'saml';

export const AUTH_PROVIDER_KEY = 'system_auth_provider';

interface ProviderCommon {
  /** The provider's name: lower-case letters, digits, "-" and "_"; used in /auth/login/{name} and svc_users.provider. */
  name: string;
  /** Shown on the sign-in page. */
  label: string;
  /** A Material Symbols icon name for the sign-in page, or null. */
  icon: string | null;
  /** First sign-in creates the user; otherwise an unknown identity is refused. */
  allowPublicRegistration: boolean;
  /** The role of users created on first sign-in (and when no mapping matches), or null. */
  defaultRoleId: string | null;
  /** Update first_name, last_name and email from the identity on every sign-in. */
  syncUserInfo: boolean;
  /** A group (LDAP group cn, or a value of the OAuth/OIDC group claim) -> role id; the first match wins. */
  roleMapping: Record<string, string>;
  /** Where it was configured. */
  source: 'env' | 'settings';
}

export interface OAuthProviderConfig extends ProviderCommon {
  driver: 'openid' | 'oauth2';
  clientId: string;
  clientSecret: string;
  /** openid: the issuer (discovery at /.well-known/openid-configuration). */
  issuerUrl: string | null;
  /** oauth2: the endpoints. */
  authorizeUrl: string | null;
  accessUrl: string | null;
  profileUrl: string | null;
  /** Space-separated scopes. */
  scope: string;
  /** The claim/profile key that identifies the user at the provider (openid: `sub`; oauth2: `id`). */
  identifierKey: string;
  emailKey: string;
  firstNameKey: string;
  lastNameKey: string;
  /** The claim/profile key holding the user's groups, for roleMapping. */
  groupClaimName: string;
  /** Absolute URLs (origin + path prefix) a flow may redirect to besides the server's own PUBLIC_URL. */
  redirectAllowList: string[];
}

export interface LdapProviderConfig extends ProviderCommon {
  driver: 'ldap';
  /** ldap:// or ldaps:// */
  clientUrl: string;
  /** The service account that searches for the user; null: bind directly as `${userAttribute}=${identifier},${userDn}`. */
  bindDn: string | null;
  bindPassword: string | null;
  /** The base DN of the users. */
  userDn: string;
  /** The attribute the identifier is matched against (cn, uid, sAMAccountName). */
  userAttribute: string;
  userScope: 'base' | 'one' | 'sub';
  mailAttribute: string;
  firstNameAttribute: string;
  lastNameAttribute: string;
  /** The base DN of the groups (null: no group lookup), their membership attribute and scope. */
  groupDn: string | null;
  groupAttribute: string;
  groupScope: 'base' | 'one' | 'sub';
  /** Upgrade ldap:// with StartTLS. */
  startTls: boolean;
  /** TLS options for ldaps:// and StartTLS. */
  tls: { rejectUnauthorized: boolean; ca: string | null };
}

/** SAML 2.0, SP-initiated (./saml.ts). The IdP is given by its metadata XML, or by its SSO URL and signing
 * certificate; exactly one of the two. */
export interface SamlProviderConfig extends ProviderCommon {
  driver: 'saml';
  /** The IdP's metadata XML (from the environment also a file path, read at start-up). */
  idpMetadata: string | null;
  /** The IdP's SSO endpoint (HTTP-Redirect binding) and its signing certificate (PEM), without metadata. */
  idpSsoUrl: string | null;
  idpCert: string | null;
  /** Our entity id; null: `${PUBLIC_URL}/auth/login/<name>/metadata`. */
  spEntityId: string | null;
  /** The attribute that identifies the user; null: the NameID. */
  identifierKey: string | null;
  emailKey: string;
  firstNameKey: string;
  lastNameKey: string;
  /** The attribute holding the user's groups, for roleMapping. */
  groupClaimName: string;
  redirectAllowList: string[];
}

/** The drivers that sign in by sending the browser to the IdP and back. */
export type RedirectProviderConfig = OAuthProviderConfig | SamlProviderConfig;

export type SsoProviderConfig = OAuthProviderConfig | LdapProviderConfig | SamlProviderConfig;

/** What a driver found out about the person who signed in. */
export interface ExternalProfile {
  /** Stable id at the provider (OIDC `sub`, an OAuth2 profile id, the LDAP entry's DN, a SAML NameID). */
  identifier: string;
  email: string | null;
  /** The provider vouches for the email (OIDC `email_verified`; LDAP directories are trusted). */
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
  /** Group names, for roleMapping. */
  groups: string[];
  /** Kept in svc_users.auth_data (never a token or a password). */
  authData: Record<string, unknown>;
}

/** The public listing of GET /auth. */
export interface PublicProvider { name: string; driver: SsoDriverName; label: string; icon: string | null }
