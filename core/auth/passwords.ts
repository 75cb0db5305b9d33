import { randomBytes } from 'node:crypto';

/** The native argon2 addon is loaded on the first hash or verify, not at import: a Lambda cold start answering a
 * token-authenticated request never needs it. */
let argon2: Promise<typeof import('@node-rs/argon2')> | null = null;
const loadArgon2 = () => (argon2 ??= import('@node-rs/argon2'));

export async function hashPassword(password: string): Promise<string> {
  return (await loadArgon2()).hash(password);
}

export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  const { verify } = await loadArgon2();
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}

/** A random password that satisfies any sane policy, printed once at first start. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
