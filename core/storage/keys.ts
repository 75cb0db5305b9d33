/** Storage keys are single flat names of safe characters: no separators, no dot segments, no control
 * characters. Everything that builds a key (uploads, transforms, tus) passes it through here. */
import { InvalidPayloadError } from '../errors.ts';

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

export function isStorageKey(key: string): boolean {
  return SAFE_KEY.test(key) && !key.includes('..');
}

export function assertStorageKey(key: string): string {
  if (!isStorageKey(key)) throw new InvalidPayloadError(`Invalid storage key "${key.slice(0, 80)}".`);
  return key;
}

/** A file's extension for its storage key: lower-case letters and digits only, at most 10 characters. */
export function safeExtension(filename: string | null | undefined): string {
  if (!filename) return '';
  const dot = filename.lastIndexOf('.');
  if (dot <= 0 || dot === filename.length - 1) return '';
  const ext = filename.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,10}$/.test(ext) ? ext : '';
}
