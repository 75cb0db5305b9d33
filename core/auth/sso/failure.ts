/** A redirect sign-in that ends without a session: the browser goes back to the redirect URL with
 * `?reason=<code>`, the real cause is logged server-side only (never a stack or a provider secret in the URL). */

/** The reason codes a redirect flow answers with. */
export type SsoReason =
  /** The user refused at the IdP, the IdP refused the code (e.g. replayed), or public registration is off. */
  | 'INVALID_CREDENTIALS'
  /** The IdP answered something unusable (an error other than a refusal, a profile without an identifier). */
  | 'INVALID_PROVIDER'
  /** Missing, forged or expired flow state; a state mismatch; an ID token that fails validation; a bad link token. */
  | 'INVALID_TOKEN'
  /** The account is suspended (or otherwise not active). */
  | 'USER_SUSPENDED'
  /** A local account already has this email and is not linked to this provider: sign in and link it first. */
  | 'ACCOUNT_NOT_LINKED'
  /** Linking: this identity already belongs to another user. */
  | 'IDENTITY_ALREADY_LINKED'
  /** The IdP (or the directory) can't be reached. */
  | 'SERVICE_UNAVAILABLE';

export class SsoFlowError extends Error {
  constructor(readonly reason: SsoReason, readonly detail: string) {
    super(detail);
    this.name = 'SsoFlowError';
  }
}
