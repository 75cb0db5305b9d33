/** External sign-on: the listing of GET /auth, the redirect flow (start, callback), LDAP's POST login and linking.
 * HTTP stays in functions/routes/auth-sso.ts; here are the rules. Every piece of flow state is in the signed flow
 * cookie (./flow-state.ts), so any process or Lambda can finish a flow another one started. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Accountability } from '../../access/accountability.ts';
import {
  InvalidCredentialsError, InvalidOtpError, InvalidPayloadError, RouteNotFoundError, ServiceError, UserSuspendedError,
} from '../../errors.ts';
import type { AccessPort, ConfigPort, DatabasePort, EventsPort, SchemaPort, StorePort } from '../../ports.ts';
import type { RequestMeta } from '../authenticate.ts';
import type { IssuedTokens } from '../issue.ts';
import { startLoginSession, type LoginMode } from '../login.ts';
import { spendOtp } from '../otp.ts';
import { verifyPassword } from '../passwords.ts';
import { SsoFlowError, type SsoReason } from './failure.ts';
import {
  openFlow, openSamlRelay, sealFlow, sealSamlRelay, signLinkToken, verifyLinkToken, type FlowState, type SsoMode,
} from './flow-state.ts';
import { ldapAuthenticate } from './ldap.ts';
import { finishAuthorization, startAuthorization } from './oauth.ts';
import { allowedRedirect, defaultRedirect, withReason } from './redirect.ts';
import { publicProvider, type SsoPort } from './registry.ts';
import { newRequestId, samlAuthorizeUrl, samlMetadata, samlProfile, spEndpoints } from './saml.ts';
import type {
  ExternalProfile, LdapProviderConfig, OAuthProviderConfig, PublicProvider, RedirectProviderConfig, SamlProviderConfig, SsoProviderConfig,
} from './types.ts';
import { accountForIdentity, linkIdentity, localAccount, type SsoUser } from './users.ts';

export type SsoServices = AccessPort & ConfigPort & DatabasePort & EventsPort & SchemaPort & StorePort & SsoPort;

function log(services: ConfigPort, message: string): void {
  if (services.config.logLevel !== 'silent') console.warn(`[sso] ${message}`);
}

async function loaded(services: SsoServices) {
  return services.sso.providers((await services.schema.get()).version);
}

export async function listPublicProviders(services: SsoServices): Promise<PublicProvider[]> {
  return (await loaded(services)).list().map(publicProvider);
}

async function provider(services: SsoServices, name: string, path: string): Promise<SsoProviderConfig> {
  const p = (await loaded(services)).get(name);
  if (!p) throw new RouteNotFoundError(path);
  return p;
}

function redirectOnly(p: SsoProviderConfig): RedirectProviderConfig {
  if (p.driver === 'ldap') throw new InvalidPayloadError(`Provider "${p.name}" is an LDAP directory: sign in with POST /auth/login/${p.name}.`);
  return p;
}

function oauthOnly(p: SsoProviderConfig): OAuthProviderConfig {
  const r = redirectOnly(p);
  if (r.driver === 'saml') throw new InvalidPayloadError(`Provider "${p.name}" is a SAML IdP: its response is posted to /auth/login/${p.name}/callback.`);
  return r;
}

function samlOnly(p: SsoProviderConfig, path: string): SamlProviderConfig {
  if (p.driver !== 'saml') throw new RouteNotFoundError(path);
  return p;
}

function ldapOnly(p: SsoProviderConfig): LdapProviderConfig {
  if (p.driver !== 'ldap') throw new InvalidPayloadError(`Provider "${p.name}" signs in by redirect: use GET /auth/login/${p.name}.`);
  return p;
}

export function callbackUrl(publicUrl: string, name: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/auth/login/${name}/callback`;
}

/** The redirect a flow may end at (validated before any IdP traffic): 400 when not allowed. */
function redirectTarget(services: ConfigPort, p: RedirectProviderConfig, raw: string | undefined): string {
  if (raw === undefined || raw === '') return defaultRedirect(services.config.publicUrl);
  const ok = allowedRedirect(raw, services.config.publicUrl, p.redirectAllowList);
  if (!ok) throw new InvalidPayloadError(`"redirect" is not an allowed URL for provider "${p.name}".`);
  return ok;
}

export interface StartInput { redirect?: string; mode?: string; link?: string }
/** `samlBinding`: the value of the SAML browser binding cookie to set (see samlBrowserBinding). */
export interface Redirect { location: string; flowCookie: string | null; samlBinding?: string }

export const SAML_BINDING_COOKIE = 'svc_sso_saml';

/** Login CSRF: a SAML flow travels in RelayState, so without more, someone could start a flow of their own, stop
 * before posting the IdP's answer, and have a victim's browser post it, signing the victim in as them. The flow is
 * bound to the browser that started it by a random cookie whose hash the RelayState carries. The IdP's form POST
 * is cross-site, so the cookie must be SameSite=None, which browsers accept only with Secure: over https. A server
 * whose PUBLIC_URL is http (a laptop) starts unbound flows. */
function samlBrowserBinding(publicUrl: string): { cookie: string; hash: string } | null {
  if (!publicUrl.startsWith('https:')) return null;
  const cookie = randomBytes(24).toString('base64url');
  return { cookie, hash: createHash('sha256').update(cookie).digest('base64url') };
}

function bindingMatches(expectedHash: string, cookie: string | undefined): boolean {
  if (!cookie) return false;
  const got = createHash('sha256').update(cookie).digest();
  const want = Buffer.from(expectedHash, 'base64url');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** GET /auth/login/{provider}: the IdP's authorization URL and the flow cookie (OAuth), or the IdP's SSO URL with
 * the AuthnRequest and the flow in RelayState (SAML). */
export async function startLogin(services: SsoServices, name: string, path: string, input: StartInput): Promise<Redirect> {
  const p = redirectOnly(await provider(services, name, path));
  const redirect = redirectTarget(services, p, input.redirect);
  if (input.mode !== undefined && input.mode !== 'session' && input.mode !== 'cookie') {
    throw new InvalidPayloadError('"mode" must be one of [session, cookie]');
  }
  let link: string | null = null;
  if (input.link !== undefined) {
    link = await verifyLinkToken(input.link, name, services.config.secret);
    if (!link) throw new InvalidPayloadError('"link" is not a valid link token (they last 5 minutes).');
  }
  try {
    if (p.driver === 'saml') {
      const requestId = newRequestId();
      const binding = samlBrowserBinding(services.config.publicUrl);
      const relayState = await sealSamlRelay({
        provider: name, requestId, redirect, mode: (input.mode as SsoMode | undefined) ?? 'session', link, browser: binding?.hash ?? null,
      }, services.config.secret);
      const sp = spEndpoints(services.config.publicUrl, p);
      const location = await samlAuthorizeUrl(await loaded(services), p, sp, requestId, relayState);
      return { location, flowCookie: null, ...(binding ? { samlBinding: binding.cookie } : {}) };
    }
    const start = await startAuthorization(await loaded(services), p, callbackUrl(services.config.publicUrl, name));
    const flow: FlowState = {
      provider: name, state: start.state, nonce: start.nonce, verifier: start.verifier, redirect,
      mode: (input.mode as SsoMode | undefined) ?? 'session', link,
    };
    return { location: start.url, flowCookie: await sealFlow(flow, services.config.secret) };
  } catch (err) {
    return { location: withReason(redirect, failureReason(services, err, name)), flowCookie: null };
  }
}

function failureReason(services: ConfigPort, err: unknown, name: string): SsoReason {
  if (err instanceof SsoFlowError) {
    log(services, `${name}: ${err.reason}: ${err.detail}`);
    return err.reason;
  }
  if (err instanceof ServiceError && ['INVALID_CREDENTIALS', 'USER_SUSPENDED', 'SERVICE_UNAVAILABLE', 'INVALID_TOKEN'].includes(err.code)) {
    log(services, `${name}: ${err.code}: ${err.message}`);
    return err.code as SsoReason;
  }
  console.error(`[sso] ${name}: unexpected failure`, err);
  return 'SERVICE_UNAVAILABLE';
}

export interface CallbackResult {
  location: string;
  /** Set when a session was started (not for a link or a failure). */
  tokens: IssuedTokens | null;
  mode: SsoMode;
  tfaSetupRequired: boolean;
}

/** GET /auth/login/{provider}/callback: finishes the flow; never throws for a flow failure (it redirects with a
 * reason), only 404 for an unknown provider. */
export async function finishLogin(
  services: SsoServices, name: string, path: string, query: URLSearchParams, flowToken: string | undefined, meta: RequestMeta,
): Promise<CallbackResult> {
  const p = oauthOnly(await provider(services, name, path));
  const flow = await openFlow(flowToken, name, services.config.secret);
  const fallback = defaultRedirect(services.config.publicUrl);
  const fail = (reason: SsoReason, to: string): CallbackResult => ({ location: withReason(to, reason), tokens: null, mode: flow?.mode ?? 'session', tfaSetupRequired: false });
  if (!flow) {
    log(services, `${name}: callback without a valid flow cookie (missing, forged, expired or for another provider)`);
    return fail('INVALID_TOKEN', fallback);
  }
  try {
    const error = query.get('error');
    if (error) {
      throw new SsoFlowError(error === 'access_denied' ? 'INVALID_CREDENTIALS' : 'INVALID_PROVIDER',
        `${name}: the IdP answered error=${error} ${query.get('error_description') ?? ''}`);
    }
    if (!query.get('state') || query.get('state') !== flow.state) throw new SsoFlowError('INVALID_TOKEN', `${name}: state mismatch`);
    const callback = new URL(callbackUrl(services.config.publicUrl, name));
    callback.search = query.toString();
    const profile = await finishAuthorization(await loaded(services), p, callback, flow);
    return await completeRedirectFlow(services, p, flow, profile, meta);
  } catch (err) {
    return fail(failureReason(services, err, name), flow.redirect);
  }
}

/** The tail of every redirect flow once the IdP's answer is verified: link, or sign in and start a session. */
async function completeRedirectFlow(
  services: SsoServices, p: RedirectProviderConfig, flow: { redirect: string; mode: SsoMode; link: string | null }, profile: ExternalProfile, meta: RequestMeta,
): Promise<CallbackResult> {
  if (flow.link) {
    await linkIdentity(services.database.db, flow.link, p, profile);
    return { location: flow.redirect, tokens: null, mode: flow.mode, tfaSetupRequired: false };
  }
  const user = await signInUser(services, p, profile);
  // Two-factor of redirect flows is the IdP's business (as in Directus); an enforced one not set up here still
  // limits the token to setting it up.
  const tfaSetupRequired = user.enforce_tfa && !(user.tfa_secret && user.tfa_enabled);
  const tokens = await startLoginSession(services, { user: user.id, role: user.role, provider: p.name, tfaSetupRequired, mode: flow.mode }, meta);
  return { location: flow.redirect, tokens, mode: flow.mode, tfaSetupRequired };
}

export interface SamlPost { SAMLResponse: string | undefined; RelayState: string | undefined }

/** POST /auth/login/{provider}/callback, the SAML Assertion Consumer Service: the flow comes from the signed
 * RelayState (the IdP's cross-site form POST carries no SameSite=Lax cookie). Like finishLogin, a flow failure
 * redirects with a reason; only an unknown provider is a 404. */
export async function finishSamlLogin(
  services: SsoServices, name: string, path: string, form: SamlPost, bindingCookie: string | undefined, meta: RequestMeta,
): Promise<CallbackResult> {
  const p = await provider(services, name, path);
  if (p.driver !== 'saml') throw new InvalidPayloadError(`Provider "${name}" is not a SAML IdP: its callback is a GET.`);
  const flow = await openSamlRelay(form.RelayState, name, services.config.secret);
  if (!flow) {
    log(services, `${name}: SAML response without a valid RelayState (missing, forged, expired or for another provider)`);
    return { location: withReason(defaultRedirect(services.config.publicUrl), 'INVALID_TOKEN'), tokens: null, mode: 'session', tfaSetupRequired: false };
  }
  try {
    if (flow.browser !== null && !bindingMatches(flow.browser, bindingCookie)) {
      throw new SsoFlowError('INVALID_TOKEN', `${name}: the SAML response was posted by a browser other than the one that started the flow (no or another binding cookie)`);
    }
    if (!form.SAMLResponse) throw new SsoFlowError('INVALID_TOKEN', `${name}: the POST holds no SAMLResponse`);
    const sp = spEndpoints(services.config.publicUrl, p);
    const profile = await samlProfile(await loaded(services), services.store, p, sp,
      { SAMLResponse: form.SAMLResponse, RelayState: form.RelayState! }, flow);
    return await completeRedirectFlow(services, p, flow, profile, meta);
  } catch (err) {
    return { location: withReason(flow.redirect, failureReason(services, err, name)), tokens: null, mode: flow.mode, tfaSetupRequired: false };
  }
}

/** GET /auth/login/{provider}/metadata: the SP metadata to register at the IdP (404 for a provider that isn't SAML). */
export async function samlProviderMetadata(services: SsoServices, name: string, path: string): Promise<string> {
  const p = samlOnly(await provider(services, name, path), path);
  return samlMetadata(await loaded(services), p, spEndpoints(services.config.publicUrl, p));
}

async function signInUser(services: SsoServices, p: SsoProviderConfig, profile: ExternalProfile): Promise<SsoUser> {
  const user = await accountForIdentity(services.database.db, p, profile);
  if (user.status !== 'active') throw new SsoFlowError('USER_SUSPENDED', `${p.name}: user ${user.id} is ${user.status}`);
  return user;
}

/** An SsoFlowError of the JSON endpoints (LDAP) as the error envelope's error. */
function asServiceError(err: unknown): unknown {
  if (!(err instanceof SsoFlowError)) return err;
  switch (err.reason) {
    case 'USER_SUSPENDED': return new UserSuspendedError();
    case 'ACCOUNT_NOT_LINKED': return new InvalidCredentialsError('A user with this email exists and is not linked to this provider: sign in with your password and link the account first.');
    case 'IDENTITY_ALREADY_LINKED': return new InvalidPayloadError('This identity is linked to another user already.');
    default: return new InvalidCredentialsError();
  }
}

export interface LdapLoginInput { identifier: string; password: string; otp: string | null; mode: LoginMode }

function requiredString(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  if (v === undefined || v === null || v === '') throw new InvalidPayloadError(`"${key}" is required`);
  if (typeof v !== 'string') throw new InvalidPayloadError(`"${key}" must be a string`);
  return v;
}

export function parseLdapLogin(body: Record<string, unknown>): LdapLoginInput {
  const identifier = requiredString(body, 'identifier');
  const password = requiredString(body, 'password');
  const { otp, mode } = body;
  if (otp !== undefined && otp !== null && typeof otp !== 'string') throw new InvalidPayloadError('"otp" must be a string');
  if (mode !== undefined && mode !== null && mode !== 'json' && mode !== 'cookie' && mode !== 'session') {
    throw new InvalidPayloadError('"mode" must be one of [json, cookie, session]');
  }
  return { identifier, password, otp: typeof otp === 'string' && otp !== '' ? otp : null, mode: (mode as LoginMode | undefined) ?? 'json' };
}

/** POST /auth/login/{provider} (LDAP): answers like POST /auth/login, two-factor included. */
export async function ldapLogin(services: SsoServices, name: string, path: string, input: LdapLoginInput, meta: RequestMeta): Promise<IssuedTokens & { tfaSetupRequired: boolean }> {
  const p = ldapOnly(await provider(services, name, path));
  const profile = await ldapAuthenticate(p, input.identifier, input.password);
  let user: SsoUser;
  try {
    user = await signInUser(services, p, profile);
  } catch (err) {
    if (err instanceof SsoFlowError) log(services, `${name}: ${err.reason}: ${err.detail}`);
    throw asServiceError(err);
  }
  if (user.tfa_secret && user.tfa_enabled) {
    if (!input.otp) throw new InvalidOtpError('"otp" is required');
    if (!(await spendOtp(services.store, user.id, user.tfa_secret, input.otp))) throw new InvalidOtpError('"otp" is invalid');
  }
  const tfaSetupRequired = user.enforce_tfa && !(user.tfa_secret && user.tfa_enabled);
  const tokens = await startLoginSession(services, { user: user.id, role: user.role, provider: name, tfaSetupRequired, mode: input.mode }, meta);
  return { ...tokens, tfaSetupRequired };
}

/** POST /auth/link/{provider}: a signed-in local user proves their password, then links. Redirect providers answer
 * the URL that starts a link flow; LDAP links at once with the directory credentials. */
export async function startLink(
  services: SsoServices, accountability: Accountability, name: string, path: string, body: Record<string, unknown>,
): Promise<{ url: string } | { provider: string; linked: true }> {
  const p = await provider(services, name, path);
  if (!accountability.user) throw new InvalidCredentialsError('Sign in first: linking needs a signed-in user.');
  const currentPassword = requiredString(body, 'current_password');
  const account = await localAccount(services.database.db, accountability.user);
  if (!account || account.provider !== 'default' || !account.password) {
    throw new InvalidPayloadError('Only a local account with a password can be linked to a provider.');
  }
  if (!(await verifyPassword(account.password, currentPassword))) throw new InvalidCredentialsError();
  if (p.driver === 'ldap') {
    const profile = await ldapAuthenticate(p, requiredString(body, 'identifier'), requiredString(body, 'password'));
    try {
      await linkIdentity(services.database.db, account.id, p, profile);
    } catch (err) {
      throw asServiceError(err);
    }
    return { provider: name, linked: true };
  }
  const redirect = body.redirect === undefined || body.redirect === null ? undefined : String(body.redirect);
  const target = redirectTarget(services, p, redirect);
  const url = new URL(`${services.config.publicUrl.replace(/\/+$/, '')}/auth/login/${name}`);
  url.searchParams.set('link', await signLinkToken(account.id, name, services.config.secret));
  url.searchParams.set('redirect', target);
  return { url: url.toString() };
}

export { FLOW_COOKIE, FLOW_TTL_SECONDS } from './flow-state.ts';
