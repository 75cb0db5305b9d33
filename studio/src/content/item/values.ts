/** Values between the API and the form's inputs: the API's formats (dates as ISO strings, bigInteger and decimal
 * as strings, csv as arrays, json as any value) and what each native input shows and gives back. */
import type { Field } from '../schema.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** A timestamp (an instant, ISO with offset) as the local "YYYY-MM-DDTHH:mm:ss" a datetime-local input shows. */
export function instantToLocal(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A datetime-local input's value back to an instant (ISO, UTC). */
export function localToInstant(local: string): string | null {
  if (!local) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A dateTime (a wall-clock date and time, no zone) as "YYYY-MM-DDTHH:mm:ss". */
export function wallToLocal(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?/.exec(value);
  return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}` : '';
}

export function localToWall(local: string): string | null {
  if (!local) return null;
  return local.length === 16 ? `${local}:00` : local.slice(0, 19);
}

export function timeToInput(value: unknown): string {
  if (typeof value !== 'string') return '';
  const m = /^(\d{2}:\d{2})(:\d{2})?/.exec(value);
  return m ? `${m[1]}${m[2] ?? ':00'}` : '';
}

export function inputToTime(value: string): string | null {
  if (!value) return null;
  return value.length === 5 ? `${value}:00` : value.slice(0, 8);
}

export function dateToInput(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 10) : '';
}

/** csv values come back as arrays; older rows or other clients may send a comma-joined string. */
export function csvToList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string' && value !== '') return value.split(',');
  return [];
}

/** Numbers as the input shows them; the API's bigInteger and decimal strings stay strings. */
export function numberToInput(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

export function inputToNumber(field: Field, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (field.type === 'bigInteger' || field.type === 'decimal') return trimmed;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : trimmed;
}

/** A v4 UUID from the browser's generator. */
export function newUuid(): string {
  return crypto.randomUUID();
}

/** Two form values are the same value (objects and arrays compared by content). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined || a === '') && (b === null || b === undefined || b === '')) return a === b || (a !== '' && b !== '');
  return JSON.stringify(a) === JSON.stringify(b);
}
