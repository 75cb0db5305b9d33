/** A real SAML 2.0 identity provider for the tests: samlify (an implementation independent of the server's
 * @node-saml/node-saml) on 127.0.0.1, a free port. Its key pair and self-signed certificate are made by openssl
 * for each run.
 *
 * GET /sso takes the AuthnRequest (HTTP-Redirect binding), which samlify parses and checks against the SAML
 * schema (xmllint), and answers the auto-submitting HTML form of the HTTP-POST binding: a SAMLResponse for the
 * account of `nextLogin(nameId, attributes)`, its assertion signed (and the response too when `signResponse`),
 * the RelayState sent back unchanged. `nextLogin` also takes overrides of what samlify would put in the response
 * (Destination, Recipient, InResponseTo, Audience, NotOnOrAfter, Issuer): still made and signed by samlify, so a
 * test gets a validly signed response with wrong contents. `nextFailure(status)` answers a signed error Response
 * without an assertion. Attacks that only an editor of the XML could make (a foreign key, a stripped signature,
 * signature wrapping) are done by the tests on what `signIn` returns, with `decode`/`encode`. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as samlify from 'samlify';
import * as xmllint from '@authenio/samlify-node-xmllint';
import { freePort } from './free-port.ts';

samlify.setSchemaValidator(xmllint);

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
const STATUS = 'urn:oasis:names:tc:SAML:2.0:status:';

export interface KeyPair { key: string; cert: string }

/** An RSA key and a self-signed certificate for it (PEM). */
export function makeKeyPair(cn: string): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'saml-key-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', `/CN=${cn}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What samlify would derive from the request and the SP metadata, replaced. */
export interface ResponseOverrides {
  destination?: string;
  recipient?: string;
  inResponseTo?: string;
  audience?: string;
  /** ISO time of Conditions and SubjectConfirmationData NotOnOrAfter (IssueInstant and NotBefore 10 minutes earlier). */
  notOnOrAfter?: string;
  issuer?: string;
}

export interface PostedForm { action: string; SAMLResponse: string; RelayState: string }

export interface TestSamlIdp {
  /** http://127.0.0.1:<port> */
  base: string;
  entityId: string;
  ssoUrl: string;
  /** The IdP's signing certificate (PEM) and its metadata XML. */
  cert: string;
  metadata: string;
  /** Registers a service provider by its metadata XML (as an admin pastes it into the IdP); AuthnRequests find
   * theirs by their Issuer. */
  registerSp(metadataXml: string): void;
  /** The next AuthnRequest signs this account in. Attribute values are strings or lists of strings. */
  nextLogin(nameId: string, attributes?: Record<string, string | string[]>, overrides?: ResponseOverrides): void;
  /** The next AuthnRequest is answered with this second-level status (e.g. AuthnFailed) and no assertion. */
  nextFailure(status: string): void;
  /** Follows the start's 302 location to the IdP and reads the form it answers. */
  signIn(authnRequestUrl: string): Promise<PostedForm>;
  close(): Promise<void>;
}

/** A PEM certificate's base64 body (what samlify's signer puts in KeyInfo). */
export const certBody = (pem: string): string => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

export const decode = (samlResponse: string): string => Buffer.from(samlResponse, 'base64').toString('utf8');
export const encode = (xml: string): string => Buffer.from(xml, 'utf8').toString('base64');

function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function attributeStatement(attributes: Record<string, string | string[]>): string {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return '';
  const attrs = entries.map(([name, v]) => `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${
    (Array.isArray(v) ? v : [v]).map((x) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(x)}</saml:AttributeValue>`).join('')}</saml:Attribute>`);
  return `<saml:AttributeStatement>${attrs.join('')}</saml:AttributeStatement>`;
}

function formOf(html: string): PostedForm {
  const attr = (re: RegExp) => {
    const m = re.exec(html);
    if (!m) throw new Error(`the IdP page has no ${re}`);
    return m[1].replace(/&#(\d+);/g, (_s, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');
  };
  return {
    action: attr(/<form[^>]*action="([^"]*)"/),
    SAMLResponse: attr(/name="SAMLResponse" value="([^"]*)"/),
    RelayState: attr(/name="RelayState" value="([^"]*)"/),
  };
}

type Pending = { nameId: string; attributes: Record<string, string | string[]>; overrides: ResponseOverrides } | { failure: string };

export async function startSamlIdp(): Promise<TestSamlIdp> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const entityId = `${base}/metadata`;
  const ssoUrl = `${base}/sso`;
  const keys = makeKeyPair('test-saml-idp');
  const idp = samlify.IdentityProvider({
    entityID: entityId,
    privateKey: keys.key,
    signingCert: keys.cert,
    singleSignOnService: [{ Binding: REDIRECT, Location: ssoUrl }],
    nameIDFormat: [PERSISTENT],
    requestSignatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  });
  const sps = new Map<string, ReturnType<typeof samlify.ServiceProvider>>();
  const pending: Pending[] = [];

  async function answer(query: Record<string, string>): Promise<{ status: number; body: string }> {
    const issuer = /<(?:\w+:)?Issuer[^>]*>([^<]+)</.exec(samlify.Utility.inflateString(query.SAMLRequest ?? ''))?.[1];
    const sp = issuer ? sps.get(issuer) : undefined;
    if (!sp) return { status: 400, body: `no service provider registered as ${issuer}` };
    const request = await idp.parseLoginRequest(sp, 'redirect', { query });
    const requestId = String((request.extract.request as { id?: unknown } | undefined)?.id ?? '');
    const relayState = query.RelayState ?? '';
    const next = pending.shift();
    if (!next) return { status: 400, body: 'no login was prepared (nextLogin)' };
    let samlResponse: string;
    const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
    if ('failure' in next) {
      // samlify builds login responses with an assertion only; the error Response is its template filled and
      // signed by its own signer.
      const xml = samlify.SamlLib.replaceTagsByValue(
        '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="{ID}" Version="2.0" IssueInstant="{IssueInstant}" Destination="{Destination}" InResponseTo="{InResponseTo}"><saml:Issuer>{Issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="{StatusCode}"><samlp:StatusCode Value="{SubStatus}"/></samlp:StatusCode></samlp:Status></samlp:Response>',
        { ID: `_${crypto.randomUUID()}`, IssueInstant: new Date().toISOString(), Destination: acs, InResponseTo: requestId,
          Issuer: entityId, StatusCode: `${STATUS}Responder`, SubStatus: `${STATUS}${next.failure}` },
      );
      samlResponse = samlify.SamlLib.constructSAMLSignature({
        rawSamlMessage: xml, isMessageSigned: true, privateKey: keys.key, signingCert: certBody(keys.cert),
        signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', isBase64Output: true,
        signatureConfig: { prefix: 'ds', location: { reference: "/*[local-name(.)='Response']/*[local-name(.)='Issuer']", action: 'after' } },
      });
    } else {
      const { nameId, attributes, overrides } = next;
      const res = await idp.createLoginResponse(sp, request as unknown as Parameters<typeof idp.createLoginResponse>[1], 'post', { email: nameId }, {
        relayState,
        customTagReplacement: (template: string) => {
          const now = Date.now();
          const until = overrides.notOnOrAfter ?? new Date(now + 5 * 60_000).toISOString();
          const from = overrides.notOnOrAfter ? new Date(Date.parse(until) - 10 * 60_000).toISOString() : new Date(now).toISOString();
          const audience = overrides.audience ?? sp.entityMeta.getEntityID();
          const context = samlify.SamlLib.replaceTagsByValue(template, {
            ID: `_${crypto.randomUUID()}`,
            AssertionID: `_${crypto.randomUUID()}`,
            Destination: overrides.destination ?? acs,
            Audience: audience,
            SubjectRecipient: overrides.recipient ?? acs,
            Issuer: overrides.issuer ?? entityId,
            IssueInstant: from,
            StatusCode: `${STATUS}Success`,
            ConditionsNotBefore: from,
            ConditionsNotOnOrAfter: until,
            SubjectConfirmationDataNotOnOrAfter: until,
            NameIDFormat: PERSISTENT,
            NameID: nameId,
            InResponseTo: overrides.inResponseTo ?? requestId,
            AuthnStatement: `<saml:AuthnStatement AuthnInstant="${from}" SessionIndex="_s${crypto.randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
            AttributeStatement: '{AttributeStatement}',
          }).replace('{AttributeStatement}', attributeStatement(attributes));
          return { id: '', context };
        },
      });
      samlResponse = res.context;
      if (!samlResponse) throw new Error(`samlify answered ${JSON.stringify(Object.keys(res))}`);
    }
    const body = `<!doctype html><html><body onload="document.forms[0].submit()"><form method="post" action="${escapeXml(acs)}">`
      + `<input type="hidden" name="SAMLResponse" value="${escapeXml(samlResponse)}"/>`
      + `<input type="hidden" name="RelayState" value="${escapeXml(relayState)}"/>`
      + '<noscript><button type="submit">Continue</button></noscript></form></body></html>';
    return { status: 200, body };
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const send = (status: number, type: string, body: string) => { res.writeHead(status, { 'content-type': type }); res.end(body); };
    if (url.pathname === '/metadata') return send(200, 'application/samlmetadata+xml', idp.getMetadata());
    if (url.pathname !== '/sso') return send(404, 'text/plain', 'not found');
    answer(Object.fromEntries(url.searchParams)).then(
      (r) => send(r.status, r.status === 200 ? 'text/html; charset=utf-8' : 'text/plain', r.body),
      (err: unknown) => send(400, "text/plain", `the AuthnRequest was refused: ${(err as Error).stack ?? String(err)}`),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  return {
    base, entityId, ssoUrl, cert: keys.cert, metadata: idp.getMetadata(),
    registerSp(metadataXml) {
      const sp = samlify.ServiceProvider({ metadata: metadataXml });
      sps.set(sp.entityMeta.getEntityID(), sp);
    },
    nextLogin(nameId, attributes = {}, overrides = {}) { pending.push({ nameId, attributes, overrides }); },
    nextFailure(status) { pending.push({ failure: status }); },
    async signIn(authnRequestUrl) {
      const res = await fetch(authnRequestUrl);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`IdP answered ${res.status}: ${body}`);
      return formOf(body);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
