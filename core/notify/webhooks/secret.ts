/** Constant-time comparison of secrets and signatures, and the 401 of a failed verification. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidTokenError } from '../../errors.ts';

/** Equal strings, compared in time independent of where they differ (both sides hashed to equal length). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

/** 401 INVALID_TOKEN ("signature invalid", SPEC.md > Errors 4); the reason stays out of the answer. */
export function verificationFailed(): InvalidTokenError {
  return new InvalidTokenError('Webhook verification failed.');
}
