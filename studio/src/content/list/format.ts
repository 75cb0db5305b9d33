/** A cell's text: dates in the reader's locale, booleans as words, related items by their display, the rest as
 * short text. */
import { plain, type Column } from './model.ts';

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatCell(column: Column, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (column.display) {
    if (typeof value === 'object' && !Array.isArray(value)) return column.display.render(value as Record<string, unknown>);
    return plain(value);
  }
  switch (column.field.type) {
    case 'boolean': return value === true ? 'Yes' : value === false ? 'No' : plain(value);
    case 'date': {
      if (typeof value !== 'string') return plain(value);
      const d = new Date(`${value.slice(0, 10)}T00:00:00`);
      return Number.isNaN(d.getTime()) ? value : dateFmt.format(d);
    }
    case 'timestamp': case 'dateTime': {
      if (typeof value !== 'string') return plain(value);
      const d = new Date(value);
      return Number.isNaN(d.getTime()) ? value : dateTimeFmt.format(d);
    }
    default: {
      const text = plain(value);
      return text.length > 200 ? `${text.slice(0, 200)}…` : text;
    }
  }
}

const NUMERIC = new Set(['integer', 'bigInteger', 'float', 'decimal']);

export function isNumeric(column: Column): boolean {
  return !column.display && NUMERIC.has(column.field.type);
}

const count = new Intl.NumberFormat();
export function formatCount(n: number): string {
  return count.format(n);
}
