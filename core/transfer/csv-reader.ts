/** The CSV side of an import: csv-parse with the column names from the header row, nothing relaxed (an unbalanced
 * quote, a record longer than IMPORT_MAX_LINE_SIZE or a row with the wrong number of cells is an error naming
 * the line). Header names must be fields of the collection, each at most once. Records come out as
 * `{column: cell}` with null for an unquoted empty cell (see convert.ts), the export's formula guard removed
 * (csv-guard.ts). */
import { parse, CsvError, type Parser } from 'csv-parse';
import { InvalidPayloadError, ServiceError } from '../errors.ts';
import type { CollectionOverview } from '../schema/types.ts';
import { unguardCsvCell } from './csv-guard.ts';

function headerColumns(collection: CollectionOverview, header: unknown[]): string[] {
  const seen = new Set<string>();
  return header.map((raw) => {
    const name = typeof raw === 'string' ? raw.trim() : '';
    if (!name) throw new InvalidPayloadError('Invalid payload. Line 1: the header row has an empty column name.');
    if (!Object.hasOwn(collection.fields, name)) {
      throw new InvalidPayloadError(`Invalid payload. Line 1: column "${name.slice(0, 100)}" is not a field of "${collection.collection}".`, { field: name.slice(0, 100) });
    }
    if (seen.has(name)) throw new InvalidPayloadError(`Invalid payload. Line 1: column "${name}" appears twice.`, { field: name });
    seen.add(name);
    return name;
  });
}

export function csvReader(collection: CollectionOverview, maxLineSize: number): Parser {
  return parse({
    bom: true,
    columns: (header: string[]) => headerColumns(collection, header),
    max_record_size: maxLineSize,
    skip_empty_lines: true,
    // The export's formula guard (a leading `'`) comes off again, so an export imports back unchanged.
    cast: (value, context) => (context.header ? value : value !== '' || context.quoting ? unguardCsvCell(value) : null),
  });
}

/** A csv-parse failure as INVALID_PAYLOAD naming the line; our own errors (from the header check) pass as they are. */
export function csvError(err: unknown): unknown {
  if (err instanceof ServiceError) return err;
  // csv-parse wraps an error thrown by the columns callback.
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  if (cause instanceof ServiceError) return cause;
  if (err instanceof CsvError) {
    const line = typeof err.lines === 'number' ? err.lines : null;
    const text = err.message.replace(/\s*(at|on) line \d+.*$/s, '').slice(0, 300);
    return new InvalidPayloadError(`Invalid payload. CSV error${line !== null ? ` at line ${line}` : ''}: ${text}.`, line !== null ? { line } : {});
  }
  return err;
}
