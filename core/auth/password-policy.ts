/** settings.auth_password_policy: a regular expression every new password must match. Directus stores it as
 * `/^.{8,}$/` style text (slashes and optional flags); a bare pattern is accepted too. */
import { run, type Executor } from '../db/database.ts';
import { InvalidPayloadError } from '../errors.ts';

const cache = new Map<string, RegExp | null>();

/** The policy text -> a RegExp; null for no policy or an unusable pattern (which then enforces nothing,
 * as an admin typo must not lock every user out of changing their password). */
export function compilePolicy(policy: string | null | undefined): RegExp | null {
  if (!policy) return null;
  if (cache.has(policy)) return cache.get(policy)!;
  const wrapped = /^\/(.*)\/([a-z]*)$/s.exec(policy);
  let re: RegExp | null;
  try {
    re = wrapped ? new RegExp(wrapped[1], wrapped[2].replace(/[gy]/g, '')) : new RegExp(policy);
  } catch {
    re = null;
  }
  if (cache.size > 100) cache.clear();
  cache.set(policy, re);
  return re;
}

export async function loadPasswordPolicy(db: Executor): Promise<RegExp | null> {
  const [row] = await run<{ auth_password_policy: string | null }>(db, 'select auth_password_policy from svc_settings limit 1');
  return compilePolicy(row?.auth_password_policy);
}

export function checkPasswordPolicy(policy: RegExp | null, password: string): void {
  if (policy && !policy.test(password)) throw new InvalidPayloadError("Provided password doesn't match password policy");
}

/** Loads the policy and checks the password against it. */
export async function enforcePasswordPolicy(db: Executor, password: string): Promise<void> {
  checkPasswordPolicy(await loadPasswordPolicy(db), password);
}
