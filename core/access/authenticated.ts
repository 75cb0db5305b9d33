/** Endpoints marked "Auth" in SPEC.md answer anonymous callers 401, as Directus does for /users/me: any
 * authenticated principal (a user, or a share token) passes; the Public role does not. */
import { InvalidCredentialsError } from '../errors.ts';
import type { Accountability } from './accountability.ts';

export function isAuthenticated(accountability: Accountability): boolean {
  return accountability.user !== null || !!accountability.share;
}

export function assertAuthenticated(accountability: Accountability): void {
  if (!isAuthenticated(accountability)) throw new InvalidCredentialsError();
}
