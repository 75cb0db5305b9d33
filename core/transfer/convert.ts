/** CSV cells -> payload values. Every cell is text; it is turned into what the write path expects for the field's
 * type, and anything that does not convert is passed on as text so the write validation names the problem.
 * Empty cells: an unquoted empty cell is "no value" (null, or for a NOT NULL field: '' for text types, the column
 * default otherwise); a quoted empty cell (`""`) is the empty string. The CSV export writes null and '' that way,
 * so an export imports back unchanged. */
import { InvalidPayloadError } from '../errors.ts';
import { TEXT_TYPES } from '../schema/field-types.ts';
import type { CollectionOverview, FieldOverview } from '../schema/types.ts';

/** A cell as the CSV reader hands it over: null for an unquoted empty cell. */
export type Cell = string | null;

const INT_RE = /^-?\d+$/;
const OMIT = Symbol('omit');

function rowError(row: number, field: string, message: string): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. Row ${row}: "${field}" ${message}.`, { row, field });
}

function parseJsonCell(row: number, field: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw rowError(row, field, 'must be valid JSON');
  }
}

function convertCell(row: number, field: FieldOverview | undefined, name: string, cell: Cell): unknown {
  if (!field) return cell;
  if (cell === null) {
    if (field.nullable) return null;
    return TEXT_TYPES.has(field.type) && field.type !== 'hash' ? '' : OMIT;
  }
  // Relations (o2m / m2m / m2a aliases, m2o keys given as objects) may be written as JSON text.
  if (field.alias) return /^\s*[[{]/.test(cell) ? parseJsonCell(row, name, cell) : cell;
  switch (field.type) {
    case 'integer': return INT_RE.test(cell.trim()) ? Number(cell.trim()) : cell;
    case 'float': return cell.trim() !== '' && Number.isFinite(Number(cell)) ? Number(cell) : cell;
    case 'boolean': {
      const t = cell.trim().toLowerCase();
      if (t === 'true' || t === '1') return true;
      if (t === 'false' || t === '0') return false;
      return cell;
    }
    case 'json': return parseJsonCell(row, name, cell);
    case 'csv': return cell.trimStart().startsWith('[') ? parseJsonCell(row, name, cell) : cell;
    case 'string': case 'text': case 'hash': return cell;
    default: {
      // A many-to-one key written as JSON (a nested object) is still allowed; other values go as text.
      const t = cell.trim();
      if (t.startsWith('{')) return parseJsonCell(row, name, t);
      return t;
    }
  }
}

/** One CSV record (column -> cell) as a payload for the collection. */
export function csvRecordToPayload(collection: CollectionOverview, record: Record<string, Cell>, row: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, cell] of Object.entries(record)) {
    const field = Object.hasOwn(collection.fields, name) ? collection.fields[name] : undefined;
    const value = convertCell(row, field, name, cell);
    if (value !== OMIT) out[name] = value;
  }
  return out;
}
