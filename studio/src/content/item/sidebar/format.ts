/** How the sidebar (and a draft's comparison with its item) writes people, times and values. */
import { choicesOf, type FieldInfo } from '../model.ts';
import { csvToList, timeToInput } from '../values.ts';

export interface Person { id?: string; email?: string | null; first_name?: string | null; last_name?: string | null }

export function personName(p: Person | string | null | undefined): string {
  if (!p) return 'Someone (deleted user)';
  if (typeof p === 'string') return 'A user';
  const name = [p.first_name, p.last_name].filter(Boolean).join(' ');
  return name || p.email || 'A user';
}

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const abs = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.round((t - now) / 1000);
  const a = Math.abs(s);
  if (a < 45) return 'just now';
  if (a < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  if (a < 86400 * 7) return rtf.format(Math.round(s / 86400), 'day');
  return abs.format(t);
}

export function absoluteTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '' : abs.format(t);
}

export function valueText(v: unknown): string {
  if (v === null || v === undefined || v === '') return '';
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (Array.isArray(v)) return v.map((x) => (x && typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** One spelling per value, so a snapshot ("12.5", "x,y", "+00:00") and the item as read ("12.50", ["x","y"], "Z")
 * compare equal when they are. */
export function canonical(info: FieldInfo, value: unknown): unknown {
  if (value === undefined || value === '' || value === null) return null;
  switch (info.field.type) {
    case 'integer': case 'bigInteger': case 'float': case 'decimal': {
      const n = Number(value);
      return Number.isFinite(n) ? n : value;
    }
    case 'timestamp': case 'dateTime': {
      const t = Date.parse(String(value));
      return Number.isNaN(t) ? value : t;
    }
    case 'time': return timeToInput(value);
    case 'csv': return csvToList(value).join(',');
    case 'json': return JSON.stringify(value);
    default: return value === null || typeof value !== 'object' ? String(value) : JSON.stringify(value);
  }
}

/** A value as the diff shows it. */
export function shown(info: FieldInfo, value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (info.kind === 'select') {
    const choice = choicesOf(info.field).find((c) => String(c.value) === String(value));
    if (choice) return choice.text;
  }
  if (info.field.type === 'timestamp') return absoluteTime(String(value)) || String(value);
  if (info.field.type === 'csv') return csvToList(value).join(', ');
  return valueText(value);
}
