/** Time-based one-time codes (RFC 6238, authenticator apps) through otplib. */
import { verify } from 'otplib';
import type { SharedStore } from '../store/shared-store.ts';

/** Accepts the current 30-second step and one step either side (clock drift). Malformed input is false. */
export async function verifyOtp(secret: string, otp: string): Promise<boolean> {
  if (!/^\d{6}$/.test(otp)) return false;
  try {
    return (await verify({ secret, token: otp, epochTolerance: 30 })).valid;
  } catch {
    return false;
  }
}

/** How long a spent code is remembered: longer than the 90 s a code can be valid (its step and one either side). */
export const OTP_SPENT_TTL_MS = 120_000;

/** Verifies a code of a user and spends it: the same code is refused for that user while it could still be
 * valid, so a code seen over a shoulder or in a log cannot be replayed. The mark is an atomic counter in the
 * SharedStore (first use wins across instances). With the store unreachable a valid code passes unmarked,
 * as the login lockout skips its count then: refusing every second factor would lock every such user out. */
export async function spendOtp(store: SharedStore, user: string, secret: string, otp: string): Promise<boolean> {
  if (!(await verifyOtp(secret, otp))) return false;
  let uses: number;
  try {
    uses = await store.incr(`otp-spent:${user}:${otp}`, OTP_SPENT_TTL_MS);
  } catch {
    return true;
  }
  return uses === 1;
}
