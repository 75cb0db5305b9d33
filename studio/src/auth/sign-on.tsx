/** External sign-on on the sign-in page: the providers of GET /auth (OpenID, OAuth2 and SAML sign in at the provider's own
 * page, a full page load there and back; an LDAP directory signs in with a username and password in our form), and
 * the sentence for the `?reason=` a provider's failed sign-in comes back with. */
import { useQuery } from '@tanstack/react-query';

export interface SignOnProvider {
  name: string;
  driver: 'openid' | 'oauth2' | 'ldap' | 'saml';
  label: string;
  icon: string | null;
}

interface SignOnList { providers: SignOnProvider[]; disableDefault: boolean }

const NONE: SignOnList = { providers: [], disableDefault: false };
/** The label of the provider a browser left for, to name it if the sign-in comes back refused. */
const LEFT_FOR = 'studio.sign-on';

/** GET /auth; a failure or an odd answer is no providers (the password form as before). */
async function readProviders(): Promise<SignOnList> {
  try {
    const res = await fetch('/auth', { credentials: 'same-origin' });
    if (!res.ok) return NONE;
    const body = (await res.json()) as { data?: unknown; disableDefault?: unknown };
    const providers = (Array.isArray(body.data) ? body.data as SignOnProvider[] : [])
      .filter((p) => p && typeof p.name === 'string' && typeof p.label === 'string' && ['openid', 'oauth2', 'ldap', 'saml'].includes(p.driver));
    return { providers, disableDefault: body.disableDefault === true && providers.length > 0 };
  } catch {
    return NONE;
  }
}

export function useSignOnProviders(): SignOnList {
  return useQuery({ queryKey: ['auth-providers'], queryFn: readProviders, staleTime: Infinity, retry: false }).data ?? NONE;
}

/** Leaves for the provider; it sends the browser back to the sign-in page, which forwards a signed-in user to `next`
 * (else the page they last had open), as after a password sign-in. */
export function leaveFor(provider: SignOnProvider, next: string | null): void {
  const back = new URL(`${import.meta.env.BASE_URL}login`, location.origin);
  if (next && next.startsWith('/') && !next.startsWith('//')) back.searchParams.set('next', next);
  try {
    sessionStorage.setItem(LEFT_FOR, provider.label);
  } catch {
    // Storage refused: a refusal is then told without the provider's name.
  }
  location.assign(`/auth/login/${encodeURIComponent(provider.name)}?${new URLSearchParams({ mode: 'session', redirect: back.href })}`);
}

/** What went wrong, after "Sign-in with <label> failed: " (the codes of core/auth/sso/failure.ts). */
const REASONS: Record<string, string> = {
  INVALID_CREDENTIALS: 'it was cancelled, or there is no account here for you. Try again, or ask an administrator for an account',
  ACCOUNT_NOT_LINKED: 'an account with your email already exists here. Sign in the way you did before, or ask an administrator to link the two',
  IDENTITY_ALREADY_LINKED: 'that account is already linked to another user here',
  USER_SUSPENDED: 'your account here is suspended or not active. Ask an administrator to reactivate it',
  INVALID_TOKEN: 'the sign-in was interrupted or took too long. Try again',
  INVALID_PROVIDER: 'the provider answered something unexpected. Try again; if it keeps failing, tell an administrator',
  SERVICE_UNAVAILABLE: 'the provider could not be reached. Try again in a moment',
};

/** The sentence for a `?reason=` code (a code we do not know gets a general one that still names it). */
export function reasonSentence(code: string, label: string | null): string {
  const failed = label ? `Sign-in with ${label} failed` : 'Signing in with an external provider failed';
  const why = REASONS[code];
  if (why) return `${failed}: ${why}.`;
  return `${failed}. Try again; if it keeps failing, tell an administrator${/^[A-Z][A-Z0-9_]{0,60}$/.test(code) ? ` (reason: ${code})` : ''}.`;
}

/** The `?reason=` the Studio was opened with, read as it loads: a sign-in that failed before its way back was known
 * returns to /admin/, and the way to the sign-in page drops the query. */
let arrived = new URLSearchParams(location.search).get('reason');

/** The reason this load came with, as a sentence, or null (once told, null). */
export function arrivedWithReason(): string | null {
  if (!arrived) return null;
  let label: string | null = null;
  try {
    label = sessionStorage.getItem(LEFT_FOR);
  } catch {
    // No storage: the sentence goes without the provider's name.
  }
  return reasonSentence(arrived, label);
}

/** Once told, the reason leaves the address bar (a reload or a bookmark would tell it again). */
export function forgetReason(): void {
  arrived = null;
  try {
    sessionStorage.removeItem(LEFT_FOR);
  } catch {
    // Nothing to forget.
  }
  const params = new URLSearchParams(location.search);
  if (!params.has('reason')) return;
  params.delete('reason');
  const rest = params.toString();
  history.replaceState(history.state, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
}

/** One button per provider but the directory in use; with a directory in use, the way back to the password form. */
export function OtherSignOn({ providers, current, passwordAllowed, alone, onChoose }: {
  providers: SignOnProvider[];
  current: string | null;
  passwordAllowed: boolean;
  /** No form above: the buttons are the page. */
  alone: boolean;
  onChoose(provider: SignOnProvider | null): void;
}) {
  const others = providers.filter((p) => p.name !== current);
  const back = current !== null && passwordAllowed;
  if (others.length === 0 && !back) return null;
  return (
    <section className="sign-on" aria-label="Other ways to sign in">
      {!alone && <div className="sign-on-or" aria-hidden="true">or</div>}
      {back && <button type="button" className="btn" onClick={() => onChoose(null)}>Sign in with email and password</button>}
      {others.map((p) => (
        <button key={p.name} type="button" className="btn" onClick={() => onChoose(p)}>
          Sign in with {p.label}
          {p.driver !== 'ldap' && <span className="sign-on-away" aria-hidden="true">↗</span>}
        </button>
      ))}
    </section>
  );
}
