/** What the SAML driver needs from an IdP's metadata XML (an EntityDescriptor, or the first one of an
 * EntitiesDescriptor holding an IDPSSODescriptor): its entity id, the SSO URL of the HTTP-Redirect binding and its
 * signing certificates. Read once at configuration time to refuse bad metadata early, and again by ./saml.ts.
 * @xmldom/xmldom resolves no external entities, so the metadata can't make the server read files or the network. */
import { DOMParser } from '@xmldom/xmldom';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
export const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

export interface IdpDescriptor {
  entityId: string;
  ssoUrl: string;
  /** PEM certificates that may sign responses and assertions. */
  certs: string[];
}

type El = {
  localName: string | null; namespaceURI: string | null; childNodes: ArrayLike<unknown>; textContent: string | null;
  getAttribute(name: string): string | null; getElementsByTagNameNS(ns: string, name: string): ArrayLike<El>;
};

function children(el: El, ns: string, name: string): El[] {
  return Array.from(el.childNodes as ArrayLike<El>).filter((n) => n.localName === name && n.namespaceURI === ns);
}

/** A certificate's base64 body as PEM (line breaks every 64 characters). */
export function certToPem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  return `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

/** Throws an Error with a short, user-facing message when the metadata is unusable. */
export function readIdpMetadata(xml: string): IdpDescriptor {
  const errors: string[] = [];
  const doc = new DOMParser({ errorHandler: { error: (msg: string) => { errors.push(msg); }, fatalError: (msg: string) => { errors.push(msg); } } })
    .parseFromString(xml, 'text/xml') as unknown as { documentElement: El | null };
  const root = doc.documentElement;
  if (errors.length > 0 || !root) throw new Error('is not well-formed XML');
  const entities = root.localName === 'EntityDescriptor' && root.namespaceURI === MD
    ? [root] : Array.from(root.getElementsByTagNameNS(MD, 'EntityDescriptor'));
  for (const entity of entities) {
    const [idp] = children(entity, MD, 'IDPSSODescriptor');
    if (!idp) continue;
    const entityId = entity.getAttribute('entityID');
    if (!entityId) throw new Error('has no entityID');
    const sso = children(idp, MD, 'SingleSignOnService').find((s) => s.getAttribute('Binding') === REDIRECT_BINDING);
    const ssoUrl = sso?.getAttribute('Location');
    if (!ssoUrl) throw new Error('has no SingleSignOnService with the HTTP-Redirect binding');
    const certs = children(idp, MD, 'KeyDescriptor')
      .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
      .flatMap((k) => Array.from(k.getElementsByTagNameNS(DS, 'X509Certificate')))
      .map((c) => (c.textContent ?? '').trim()).filter((c) => c !== '').map(certToPem);
    if (certs.length === 0) throw new Error('has no signing certificate (KeyDescriptor use="signing" with an X509Certificate)');
    return { entityId, ssoUrl, certs };
  }
  throw new Error('describes no identity provider (no EntityDescriptor with an IDPSSODescriptor)');
}
