import { hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
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
