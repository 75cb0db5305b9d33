/** External sign-on: GET /auth (the providers), the redirect flow (GET /auth/login/{provider} and its callback:
 * a GET for OAuth, the SAML Assertion Consumer Service's form POST, and the SAML SP metadata), LDAP's
 * POST /auth/login/{provider}, and POST /auth/link/{provider}. Rules in core/auth/sso/sign-on.ts. */
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import {
  FLOW_COOKIE, FLOW_TTL_SECONDS, finishLogin, finishSamlLogin, ldapLogin, listPublicProviders, parseLdapLogin,
  SAML_BINDING_COOKIE, samlProviderMetadata, startLink, startLogin,
} from '../../core/auth/sso/sign-on.ts';
import { UnsupportedMediaTypeError } from '../../core/errors.ts';
import { readJsonObject, readText } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';
import { tokenResponseData } from './auth.ts';

function requestMeta(c: Context<AppEnv>) {
  const { ip, userAgent, origin } = c.get('accountability');
  return { ip, userAgent, origin };
}

/** The flow cookie lives only on its provider's login paths (the start and the callback under it). */
function flowCookieOptions(c: Context<AppEnv>, provider: string, maxAge: number) {
  const secure = c.get('services').config.publicUrl.startsWith('https:');
  // Lax: the IdP's redirect back is a top-level GET navigation from another site, which Lax lets through.
  return { path: `/auth/login/${provider}`, httpOnly: true, secure, sameSite: 'Lax', maxAge } as const;
}

/** The SAML browser binding (core/auth/sso/sign-on.ts samlBrowserBinding): sent with the IdP's cross-site form
 * POST, so SameSite=None, which needs Secure; it is only set when PUBLIC_URL is https. */
function samlBindingCookieOptions(provider: string, maxAge: number) {
  return { path: `/auth/login/${provider}`, httpOnly: true, secure: true, sameSite: 'None', maxAge } as const;
}

function query(c: Context<AppEnv>, key: string): string | undefined {
  const v = c.req.query(key);
  return v === undefined ? undefined : v;
}

export function mountSsoRoutes(app: Hono<AppEnv>): void {
  app.get('/auth', async (c) => c.json({ data: await listPublicProviders(c.get('services')), disableDefault: false }));

  app.get('/auth/login/:provider', async (c) => {
    const name = c.req.param('provider');
    const result = await startLogin(c.get('services'), name, c.req.path, {
      redirect: query(c, 'redirect'), mode: query(c, 'mode'), link: query(c, 'link'),
    });
    if (result.flowCookie) setCookie(c, FLOW_COOKIE, result.flowCookie, flowCookieOptions(c, name, FLOW_TTL_SECONDS));
    if (result.samlBinding) setCookie(c, SAML_BINDING_COOKIE, result.samlBinding, samlBindingCookieOptions(name, FLOW_TTL_SECONDS));
    return c.redirect(result.location, 302);
  });

  app.get('/auth/login/:provider/callback', async (c) => {
    const name = c.req.param('provider');
    const params = new URL(c.req.url).searchParams;
    const result = await finishLogin(c.get('services'), name, c.req.path, params, getCookie(c, FLOW_COOKIE), requestMeta(c));
    // One use: a replayed callback finds no flow.
    deleteCookie(c, FLOW_COOKIE, flowCookieOptions(c, name, 0));
    if (result.tokens) tokenResponseData(c, result.tokens, result.mode);
    return c.redirect(result.location, 302);
  });

  // The SAML Assertion Consumer Service: the IdP's auto-submitted form (HTTP-POST binding).
  app.post('/auth/login/:provider/callback', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') throw new UnsupportedMediaTypeError();
    const form = new URLSearchParams(await readText(c));
    const name = c.req.param('provider');
    const result = await finishSamlLogin(c.get('services'), name, c.req.path, {
      SAMLResponse: form.get('SAMLResponse') ?? undefined, RelayState: form.get('RelayState') ?? undefined,
    }, getCookie(c, SAML_BINDING_COOKIE), requestMeta(c));
    if (getCookie(c, SAML_BINDING_COOKIE)) deleteCookie(c, SAML_BINDING_COOKIE, samlBindingCookieOptions(name, 0));
    if (result.tokens) tokenResponseData(c, result.tokens, result.mode);
    // A 302 after a POST is followed with a GET by every browser.
    return c.redirect(result.location, 302);
  });

  app.get('/auth/login/:provider/metadata', async (c) => {
    const xml = await samlProviderMetadata(c.get('services'), c.req.param('provider'), c.req.path);
    return c.body(xml, 200, { 'content-type': 'application/samlmetadata+xml; charset=utf-8' });
  });

  app.post('/auth/login/:provider', async (c) => {
    const input = parseLdapLogin(await readJsonObject(c));
    const result = await ldapLogin(c.get('services'), c.req.param('provider'), c.req.path, input, requestMeta(c));
    const data = tokenResponseData(c, result, input.mode);
    if (result.tfaSetupRequired) data.tfa_setup_required = true;
    return c.json({ data });
  });

  app.post('/auth/link/:provider', async (c) => {
    const body = await readJsonObject(c);
    return c.json({ data: await startLink(c.get('services'), c.get('accountability'), c.req.param('provider'), c.req.path, body) });
  });
}
