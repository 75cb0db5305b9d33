/** Time-based one-time codes (RFC 6238, authenticator apps) through otplib. */
import { verify } from 'otplib';

/** Accepts the current 30-second step and one step either side (clock drift). Malformed input is false. */
export async function verifyOtp(secret: string, otp: string): Promise<boolean> {
  if (!/^\d{6}$/.test(otp)) return false;
  try {
    return (await verify({ secret, token: otp, epochTolerance: 30 })).valid;
  } catch {
    return false;
  }
}
