/** The `saml` driver: SAML 2.0 SP-initiated sign-on through @node-saml/node-saml. The AuthnRequest goes out with
 * the HTTP-Redirect binding; the IdP posts its Response to our Assertion Consumer Service (HTTP-POST binding).
 *
 * What a Response must be to sign someone in (node-saml checks the first four, this module the rest):
 * - the assertion signed by a configured IdP certificate (wantAssertionsSigned; an unsigned or otherwise signed one
 *   is refused; exactly one assertion, and what is read is the signed one, so signature wrapping gets nowhere);
 * - within its NotBefore/NotOnOrAfter (one minute of clock skew), for our entity id (Audience);
 * - a Success status; the assertion's Issuer the metadata's entity id (when metadata is configured);
 * - InResponseTo (Response and SubjectConfirmationData) naming the AuthnRequest of this flow: the flow's request id
 *   is the only one node-saml's request cache knows;
 * - Destination (when given) and the signed bearer SubjectConfirmationData's Recipient our ACS URL;
 * - its assertion ID never seen before: remembered in the shared store until it can no longer be accepted.
 * Failures are SsoFlowErrors; their detail is for the log only. */
import { randomBytes } from 'node:crypto';
import { SAML, SamlStatusError, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import type { SharedStore } from '../../store/shared-store.ts';
import { SsoFlowError } from './failure.ts';
import { FLOW_TTL_SECONDS } from './flow-state.ts';
import type { LoadedSsoProviders } from './registry.ts';
import { readIdpMetadata, type IdpDescriptor } from './saml-metadata.ts';
import type { ExternalProfile, SamlProviderConfig } from './types.ts';

const CLOCK_SKEW_MS = 60_000;
/** A replayed assertion is refused for at least as long as its RelayState lives, at most a day. */
const MAX_REPLAY_MEMORY_MS = 24 * 3600_000;

/** Our side of the exchange, from PUBLIC_URL. */
export interface SpEndpoints { entityId: string; acsUrl: string }

export function spEndpoints(publicUrl: string, p: SamlProviderConfig): SpEndpoints {
  const base = `${publicUrl.replace(/\/+$/, '')}/auth/login/${p.name}`;
  return { entityId: p.spEntityId ?? `${base}/metadata`, acsUrl: `${base}/callback` };
}

function idp(loaded: LoadedSsoProviders, p: SamlProviderConfig): Promise<IdpDescriptor | { entityId: null; ssoUrl: string; certs: string[] }> {
  return loaded.memo(`saml:${p.name}`, async () => (p.idpMetadata !== null
    ? readIdpMetadata(p.idpMetadata)
    : { entityId: null, ssoUrl: p.idpSsoUrl!, certs: [p.idpCert!] }));
}

/** An AuthnRequest ID (an xs:ID: starts with a letter or "_"). */
export function newRequestId(): string {
  return `_${randomBytes(20).toString('hex')}`;
}

/** node-saml's request cache for one flow: it knows the flow's request only (from the signed RelayState), so no
 * process needs to remember anything between the start and the callback. */
function flowRequests(requestId: string, issuedAt: number): CacheProvider {
  const value = new Date(issuedAt).toISOString();
  return {
    saveAsync: async (key, v) => (key === requestId ? { value: v, createdAt: issuedAt } : null),
    getAsync: async (key) => (key === requestId ? value : null),
    removeAsync: async () => null,
  };
}

async function client(loaded: LoadedSsoProviders, p: SamlProviderConfig, sp: SpEndpoints, requestId: string, issuedAt: number): Promise<SAML> {
  const d = await idp(loaded, p);
  return new SAML({
    entryPoint: d.ssoUrl,
    idpCert: d.certs,
    ...(d.entityId ? { idpIssuer: d.entityId } : {}),
    issuer: sp.entityId,
    audience: sp.entityId,
    callbackUrl: sp.acsUrl,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: FLOW_TTL_SECONDS * 1000,
    cacheProvider: flowRequests(requestId, issuedAt),
    generateUniqueId: () => requestId,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // The IdP's configured NameID format and authentication method: a requested password context breaks
    // passwordless and MFA sign-ins at Entra ID and others.
    identifierFormat: null,
    disableRequestedAuthnContext: true,
  });
}

/** The IdP URL carrying the AuthnRequest (HTTP-Redirect binding) and the RelayState. */
export async function samlAuthorizeUrl(
  loaded: LoadedSsoProviders, p: SamlProviderConfig, sp: SpEndpoints, requestId: string, relayState: string,
): Promise<string> {
  try {
    const saml = await client(loaded, p, sp, requestId, Date.now());
    return await saml.getAuthorizeUrlAsync(relayState, undefined, {});
  } catch (err) {
    throw new SsoFlowError('INVALID_PROVIDER', `${p.name}: the AuthnRequest could not be made: ${(err as Error).message}`);
  }
}

/** Our SP metadata: entity id, the ACS URL (HTTP-POST), WantAssertionsSigned. */
export async function samlMetadata(loaded: LoadedSsoProviders, p: SamlProviderConfig, sp: SpEndpoints): Promise<string> {
  return (await client(loaded, p, sp, newRequestId(), Date.now())).generateServiceProviderMetadata(null);
}

type XmlJs = { $?: Record<string, string>; _?: string; [child: string]: unknown };

function children(node: XmlJs | undefined, name: string): XmlJs[] {
  const v = node?.[name];
  return Array.isArray(v) ? (v as XmlJs[]) : [];
}

function values(v: unknown): string[] {
  const list = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  return list.filter((x): x is string => typeof x === 'string' && x !== '');
}

const STATUS = 'urn:oasis:names:tc:SAML:2.0:status:';
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';

/** The Response's Destination and top-level status code (the unsigned envelope: only ever a reason to refuse). */
function responseHeader(xml: string): { destination: string | null; status: string | null } {
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  const status = root ? Array.from(root.getElementsByTagNameNS(PROTOCOL, 'StatusCode'))[0] : undefined;
  return { destination: root?.getAttribute('Destination') || null, status: status?.getAttribute('Value') ?? null };
}

function statusReason(err: SamlStatusError): 'INVALID_CREDENTIALS' | 'INVALID_PROVIDER' {
  // The user failed or refused to authenticate at the IdP (as OAuth's access_denied); anything else is the IdP's.
  return /:(AuthnFailed|RequestDenied|NoPassive)\b/.test(err.xmlStatus) ? 'INVALID_CREDENTIALS' : 'INVALID_PROVIDER';
}

export interface SamlFlow { requestId: string; issuedAt: number }

/** The person a posted SAMLResponse signs in, after every check above; the assertion is spent. */
export async function samlProfile(
  loaded: LoadedSsoProviders, store: SharedStore, p: SamlProviderConfig, sp: SpEndpoints, form: { SAMLResponse: string; RelayState: string }, flow: SamlFlow,
): Promise<ExternalProfile> {
  const saml = await client(loaded, p, sp, flow.requestId, flow.issuedAt);
  let profile: Profile | null;
  try {
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState }));
  } catch (err) {
    if (err instanceof SamlStatusError) throw new SsoFlowError(statusReason(err), `${p.name}: ${err.message}`);
    throw new SsoFlowError('INVALID_TOKEN', `${p.name}: the SAML response was refused: ${(err as Error).message}`);
  }
  if (!profile?.getAssertion || !profile.getSamlResponseXml) throw new SsoFlowError('INVALID_TOKEN', `${p.name}: the SAML response holds no assertion`);

  const response = responseHeader(profile.getSamlResponseXml());
  // node-saml reads a signed assertion even under an error status; a real IdP sends none, refuse it anyway.
  if (response.status !== `${STATUS}Success`) throw new SsoFlowError('INVALID_PROVIDER', `${p.name}: status ${response.status} with an assertion`);
  if (response.destination !== null && response.destination !== sp.acsUrl) {
    throw new SsoFlowError('INVALID_TOKEN', `${p.name}: the response's Destination is ${response.destination}, not ${sp.acsUrl}`);
  }
  // node-saml checks the issuer of logout messages only; profile.issuer is the signed assertion's.
  const { entityId } = await idp(loaded, p);
  if (entityId !== null && profile.issuer !== entityId) {
    throw new SsoFlowError('INVALID_TOKEN', `${p.name}: the assertion's issuer is ${profile.issuer}, not ${entityId}`);
  }
  // Everything below is read from the signed assertion.
  const assertion = (profile.getAssertion() as { Assertion?: XmlJs }).Assertion;
  const confirmations = children(children(assertion, 'Subject')[0], 'SubjectConfirmation')
    .filter((c) => c.$?.Method === 'urn:oasis:names:tc:SAML:2.0:cm:bearer')
    .flatMap((c) => children(c, 'SubjectConfirmationData'));
  if (!confirmations.some((d) => d.$?.Recipient === sp.acsUrl && d.$?.InResponseTo === flow.requestId)) {
    throw new SsoFlowError('INVALID_TOKEN', `${p.name}: no bearer SubjectConfirmationData for ${sp.acsUrl} in response to ${flow.requestId}`);
  }
  const assertionId = assertion?.$?.ID;
  if (!assertionId) throw new SsoFlowError('INVALID_TOKEN', `${p.name}: the assertion has no ID`);
  await spendAssertion(store, p.name, assertionId, [
    children(assertion, 'Conditions')[0]?.$?.NotOnOrAfter, ...confirmations.map((d) => d.$?.NotOnOrAfter),
  ], flow.issuedAt);

  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const first = (key: string): string | null => values(attributes[key])[0] ?? null;
  const identifier = p.identifierKey === null ? profile.nameID : first(p.identifierKey);
  if (!identifier) throw new SsoFlowError('INVALID_PROVIDER', `${p.name}: the assertion has no ${p.identifierKey ?? 'NameID'}`);
  const email = first(p.emailKey) ?? (p.emailKey === 'email' && typeof profile.email === 'string' ? profile.email : null);
  return {
    identifier,
    email,
    emailVerified: false,
    firstName: first(p.firstNameKey),
    lastName: first(p.lastNameKey),
    groups: values(attributes[p.groupClaimName]),
    authData: { nameID: profile.nameID, nameIDFormat: profile.nameIDFormat ?? null, issuer: profile.issuer ?? null, sessionIndex: profile.sessionIndex ?? null },
  };
}

/** Set-if-absent with a TTL (as OTP codes are spent, ../otp.ts): the first use wins. Unlike an OTP, a store that
 * can't answer refuses the sign-in: without it a captured response could be replayed. */
async function spendAssertion(store: SharedStore, provider: string, id: string, notOnOrAfter: Array<string | undefined>, flowIssuedAt: number): Promise<void> {
  const now = Date.now();
  const until = Math.max(flowIssuedAt + FLOW_TTL_SECONDS * 1000,
    ...notOnOrAfter.map((t) => (t ? Date.parse(t) : NaN)).filter((t) => Number.isFinite(t))) + CLOCK_SKEW_MS;
  const ttl = Math.min(Math.max(until - now, 1000), MAX_REPLAY_MEMORY_MS);
  let uses: number;
  try {
    uses = await store.incr(`saml-assertion:${provider}:${id}`, ttl);
  } catch (err) {
    throw new SsoFlowError('SERVICE_UNAVAILABLE', `${provider}: the shared store can't record assertion ${id}: ${(err as Error).message}`);
  }
  if (uses !== 1) throw new SsoFlowError('INVALID_TOKEN', `${provider}: assertion ${id} was used already (replay)`);
}
