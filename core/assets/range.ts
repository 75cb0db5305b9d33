/** The Range header of a raw asset (SPEC.md > Assets rule 6). Only a single `bytes=` range of plain decimal
 * digits is honoured: `a-b` (end clamped to size-1), `a-` (to the end), `-n` (the last n bytes). A start at or
 * beyond the end of the file is unsatisfiable (416). Anything else (letters, signs, spaces inside numbers,
 * reversed bounds, several ranges, another unit) is ignored and the whole file is served. */
import type { ByteRange } from '../storage/driver.ts';

export type RangeRequest =
  | { kind: 'full' }
  | { kind: 'partial'; range: ByteRange }
  | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

export function parseRange(header: string | null | undefined, size: number): RangeRequest {
  if (!header) return { kind: 'full' };
  const m = SINGLE.exec(header.trim());
  if (!m) return { kind: 'full' };
  const [, first, last] = m;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // Suffix range: the last n bytes; a zero-length suffix selects nothing.
    const n = Number(last);
    if (!Number.isSafeInteger(n)) return { kind: 'full' };
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start)) return { kind: 'full' };
  let end = size - 1;
  if (last !== '') {
    end = Number(last);
    if (!Number.isSafeInteger(end)) end = size - 1;
    else if (end < start) return { kind: 'full' };
  }
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end: Math.min(end, size - 1) } };
}
