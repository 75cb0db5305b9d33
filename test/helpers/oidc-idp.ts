/** A real OpenID Connect provider for the tests (oidc-provider v9 on 127.0.0.1, a free port): discovery, authorize
 * with PKCE, token, userinfo and JWKS endpoints, configurable clients and accounts.
 *
 * Signing in needs no typing: the interaction page lists one button per account ("Sign in as <sub>") so a browser
 * can click through it, and `nextLogin(sub)` makes the next interaction sign that account in at once, which
 * `signIn(url, sub)` uses to walk a whole authorization request (carrying the IdP's cookies) to the client's
 * redirect URI. `rotateKeys()` swaps in a new signing key on the same port (the issuer stays the same, the old key
 * leaves the JWKS). `tamperNextIdToken(patch)` re-signs the next ID token the token endpoint issues, with the
 * issuer's own current key, after changing claims (exp, aud, iss, nonce...): a validly signed token with wrong
 * contents, which is what a relying party's ID-token validation must refuse. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import Provider, { type KoaContextLike } from 'oidc-provider';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { freePort } from './free-port.ts';

export interface IdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** Default client_secret_post (what the server's drivers send). */
  token_endpoint_auth_method?: 'client_secret_post' | 'client_secret_basic';
}

export interface IdpAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  groups?: string[];
}

export interface IdpOptions {
  clients: IdpClient[];
  accounts: IdpAccount[];
  /** Seconds; default 600. */
  idTokenTtl?: number;
}

export interface TestIdp {
  /** http://127.0.0.1:<port> (no trailing slash); discovery at `${issuer}/.well-known/openid-configuration`. */
  issuer: string;
  port: number;
  /** Endpoints, for configuring a plain `oauth2` driver against the same server. */
  authorizeUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  accounts: Map<string, IdpAccount>;
  /** Add or replace an account (e.g. change its groups between sign-ins). */
  setAccount(account: IdpAccount): void;
  /** The next interaction signs this account in without showing the page. */
  nextLogin(sub: string): void;
  /** The next interaction ends with `error=access_denied` (the user refused). */
  nextDeny(): void;
  /** The next ID token is re-signed with these claims changed (a claim set to undefined is removed). */
  tamperNextIdToken(patch: Record<string, unknown>): void;
  /** Switches to a new signing key; the JWKS then holds only the new key. */
  rotateKeys(): Promise<void>;
  /** The current signing key id. */
  currentKid(): string;
  /** Follows an authorization URL through the IdP (its cookies kept) after `nextLogin(sub)`, and returns the
   * URL the IdP finally redirects to outside itself (the client's redirect URI with code, state and iss). */
  signIn(authorizeUrl: string, sub: string): Promise<string>;
  /** Same, ending in a denial. */
  deny(authorizeUrl: string): Promise<string>;
  close(): Promise<void>;
}

interface SigningKey { kid: string; privateJwk: JWK }

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startOidcIdp(options: IdpOptions): Promise<TestIdp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map(options.accounts.map((a) => [a.sub, a]));
  // One cookie key for every Provider instance, so an interaction started before a key rotation still resumes.
  const cookieKeys = [randomUUID()];
  let key = await newSigningKey();
  const pendingLogins: Array<{ sub: string } | { deny: true }> = [];
  let tamper: Record<string, unknown> | null = null;

  function buildProvider(signing: SigningKey): Provider {
    const provider = new Provider(issuer, {
      clients: options.clients.map((c) => ({
        client_id: c.client_id,
        client_secret: c.client_secret,
        redirect_uris: c.redirect_uris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: c.token_endpoint_auth_method ?? 'client_secret_post',
      })),
      async findAccount(_ctx: unknown, sub: string) {
        const account = accounts.get(sub);
        if (!account) return undefined;
        return { accountId: sub, claims: async () => ({ ...account }) };
      },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['given_name', 'family_name'],
        groups: ['groups'],
      },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      // First-party test clients: grant every requested scope without a consent page.
      async loadExistingGrant(ctx: KoaContextLike) {
        const { oidc } = ctx;
        const clientId = oidc.client!.clientId;
        const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(clientId);
        if (grantId) {
          const found = await oidc.provider.Grant.find(grantId);
          if (found) return found;
        }
        const grant = new oidc.provider.Grant({ clientId, accountId: oidc.session!.accountId! });
        grant.addOIDCScope(String(oidc.params?.scope ?? 'openid'));
        await grant.save();
        return grant;
      },
      jwks: { keys: [signing.privateJwk] },
      cookies: { keys: cookieKeys },
      pkce: { required: () => true },
      features: { devInteractions: { enabled: false } },
      ttl: { IdToken: options.idTokenTtl ?? 600, AccessToken: 600, AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600 },
      renderError(ctx: { type: string; body: string }, out: Record<string, string>) {
        ctx.type = 'text/plain';
        ctx.body = `${out.error}: ${out.error_description ?? ''}`;
      },
    });
    provider.on('server_error', (_ctx, err) => console.error('[oidc-idp] server_error', err));
    return provider;
  }

  let provider = buildProvider(key);
  let handler = provider.callback();

  async function reSign(idToken: string, patch: Record<string, unknown>): Promise<string> {
    const payload: Record<string, unknown> = { ...decodeJwt(idToken), ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete payload[k];
    const privateKey = await importJWK(key.privateJwk, 'RS256');
    return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' }).sign(privateKey);
  }

  function interceptToken(res: ServerResponse, patch: Record<string, unknown>): void {
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    (res as { end: unknown }).end = (chunk?: unknown) => {
      const text = chunk === undefined ? '' : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
      let body: Record<string, unknown>;
      try { body = JSON.parse(text) as Record<string, unknown>; } catch { return end(chunk); }
      if (typeof body.id_token !== 'string') return end(chunk);
      void reSign(body.id_token, patch).then((idToken) => {
        const out = JSON.stringify({ ...body, id_token: idToken });
        res.setHeader('content-length', Buffer.byteLength(out));
        end(out);
      });
      return res;
    };
  }

  async function interaction(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (req.method === 'POST' && url.pathname.endsWith('/login')) {
      const sub = new URLSearchParams(await readBody(req)).get('sub') ?? '';
      if (!accounts.has(sub)) { res.writeHead(400).end('unknown account'); return; }
      await provider.interactionFinished(req, res, { login: { accountId: sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const next = pendingLogins.shift();
    if (next && 'deny' in next) {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user refused' }, { mergeWithLastSubmission: false });
      return;
    }
    if (next) {
      await provider.interactionFinished(req, res, { login: { accountId: next.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const buttons = [...accounts.keys()]
      .map((sub) => `<button type="submit" name="sub" value="${escapeHtml(sub)}">Sign in as ${escapeHtml(sub)}</button>`)
      .join('\n');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><html><head><title>Test IdP sign-in</title></head><body><h1>Test IdP</h1>` +
        `<form method="post" action="/interaction/${escapeHtml(details.uid)}/login">${buttons}</form></body></html>`,
    );
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname.startsWith('/interaction/')) {
      interaction(req, res, url).catch((err: unknown) => {
        console.error('[oidc-idp] interaction', err);
        if (!res.headersSent) res.writeHead(500).end(String(err));
      });
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token' && tamper) {
      const patch = tamper;
      tamper = null;
      interceptToken(res, patch);
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  async function walk(authorizeUrl: string): Promise<string> {
    const jar = new Map<string, string>();
    let next = authorizeUrl;
    for (let hop = 0; hop < 15; hop++) {
      if (!next.startsWith(issuer + '/')) return next;
      const res = await fetch(next, {
        redirect: 'manual',
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`IdP answered ${res.status} without a redirect at ${next}: ${await res.text()}`);
      next = new URL(location, next).toString();
    }
    throw new Error('Too many redirects at the IdP');
  }

  return {
    issuer,
    port,
    authorizeUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    userinfoUrl: `${issuer}/me`,
    accounts,
    setAccount(account) { accounts.set(account.sub, account); },
    nextLogin(sub) { pendingLogins.push({ sub }); },
    nextDeny() { pendingLogins.push({ deny: true }); },
    tamperNextIdToken(patch) { tamper = patch; },
    async rotateKeys() {
      key = await newSigningKey();
      provider = buildProvider(key);
      handler = provider.callback();
    },
    currentKid: () => key.kid,
    async signIn(authorizeUrl, sub) {
      pendingLogins.push({ sub });
      return walk(authorizeUrl);
    },
    async deny(authorizeUrl) {
      pendingLogins.push({ deny: true });
      return walk(authorizeUrl);
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
