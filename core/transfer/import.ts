/** POST /utils/import/{collection}: a CSV or JSON file streamed into a collection as items. The rows are created
 * through the items write service (createItems: permissions, presets, validation, nested writes, activity and
 * revisions, filter events) in batches of IMPORT_BATCH_SIZE, all inside ONE transaction: a failure anywhere (a bad
 * row, malformed text, a body over IMPORT_MAX_SIZE, a client that goes away) keeps nothing, and the action events
 * of the imported items fire only once the whole import has committed. A failing row is named (1-based data row)
 * with the write service's message. The transaction is open while the body arrives (under the embedded database
 * that holds the database for the length of the upload). */
import type { Duplex, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run, type Executor } from '../db/database.ts';
import { allowLongStatements } from '../db/statement-budget.ts';
import { ErrorList, InvalidPayloadError, mapDatabaseError, ServiceError, UnsupportedMediaTypeError } from '../errors.ts';
import { createItems } from '../items/write/index.ts';
import { validation, writableCollection } from '../items/write/context.ts';
import { isPlainObject } from '../items/write/payload.ts';
import type { CollectionOverview } from '../schema/types.ts';
import { csvRecordToPayload, type Cell } from './convert.ts';
import { csvError, csvReader } from './csv-reader.ts';
import { jsonError, jsonReader } from './json-reader.ts';
import { Utf8Decode } from './utf8.ts';

export type ImportFormat = 'csv' | 'json';

const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/comma-separated-values']);

function baseType(type: string | null | undefined): string {
  return (type ?? '').split(';')[0].trim().toLowerCase();
}

/** The format of a file part: its content type, else its file name's extension (browsers label CSV files
 * variously). UNSUPPORTED_MEDIA_TYPE when neither says CSV or JSON. */
export function formatOf(type: string | null | undefined, filename?: string | null): ImportFormat {
  const t = baseType(type);
  if (CSV_TYPES.has(t)) return 'csv';
  if (t === 'application/json' || /^application\/[\w.-]+\+json$/.test(t)) return 'json';
  const ext = /\.([a-z]+)$/i.exec(filename ?? '')?.[1]?.toLowerCase();
  if (ext === 'csv') return 'csv';
  if (ext === 'json') return 'json';
  throw new UnsupportedMediaTypeError(`Can't import files of type "${t || 'unknown'}". Use text/csv or application/json.`);
}

/** A raw (non-multipart) body: its Content-Type must be CSV or JSON, in UTF-8. */
export function rawFormatOf(contentType: string | null | undefined): ImportFormat {
  const charset = /;\s*charset\s*=\s*"?([\w-]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new UnsupportedMediaTypeError(`Unsupported charset "${charset}". Imports are read as UTF-8.`);
  }
  const t = baseType(contentType);
  if (CSV_TYPES.has(t)) return 'csv';
  if (t === 'application/json') return 'json';
  throw new UnsupportedMediaTypeError(`Unsupported media type "${t || 'none'}". Send multipart/form-data with a file, or a text/csv or application/json body.`);
}

/** Who may import (checked before the body is read): the collection exists (404) and the caller may create
 * items in it (403). */
export async function checkImport(ctx: ServiceContext, collectionName: string): Promise<CollectionOverview> {
  const collection = writableCollection(ctx, collectionName);
  await validation(ctx, collectionName, 'create');
  return collection;
}

function prefixRow(err: ServiceError, row: number): ServiceError {
  const text = err.message.replace(/^Invalid payload\.\s*/, '');
  const message = `${err.code === 'INVALID_PAYLOAD' ? 'Invalid payload. ' : ''}Row ${row}: ${text}`;
  return new ServiceError(err.status, err.code, message, { ...err.extensions, row }, err.reason);
}

/** The error of a row, with the row named. */
function rowError(err: unknown, row: number): unknown {
  if (err instanceof ErrorList) return new ErrorList(err.errors.map((e) => prefixRow(e, row)));
  const mapped = mapDatabaseError(err);
  return mapped instanceof ServiceError ? prefixRow(mapped, row) : err;
}

const SAVEPOINT = 'svc_import_batch';

/** Creates one batch. When it fails, the batch is undone to its savepoint and replayed row by row to name the row
 * that fails; the error then aborts the import (and its transaction). */
async function writeBatch(ctx: ServiceContext, trx: Executor, collection: string, payloads: Record<string, unknown>[], firstRow: number): Promise<number> {
  await run(trx, `savepoint ${SAVEPOINT}`);
  try {
    await createItems(ctx, collection, payloads);
  } catch (err) {
    await run(trx, `rollback to savepoint ${SAVEPOINT}`);
    for (let i = 0; i < payloads.length; i++) {
      try {
        await createItems(ctx, collection, [payloads[i]]);
      } catch (rowErr) {
        throw rowError(rowErr, firstRow + i);
      }
    }
    // Every row passed on its own (a filter hook that refuses the batch as a whole): the batch's error.
    throw err;
  }
  await run(trx, `release savepoint ${SAVEPOINT}`);
  return payloads.length;
}

/** Streams `source` (through `stages`, e.g. a size limit) into the collection; resolves with the number of items
 * created. Call checkImport first. */
export async function importStream(ctx: ServiceContext, collection: CollectionOverview, format: ImportFormat, source: Readable, stages: Transform[] = []): Promise<number> {
  const batchSize = Math.max(1, Math.min(ctx.config.transfer.importBatchSize, ctx.config.maxBatchMutation));
  const decoder = new Utf8Decode();
  const reader = format === 'csv' ? csvReader(collection, ctx.config.transfer.importMaxLineSize) : jsonReader();
  let readerFailure: unknown = null;
  reader.once('error', (err) => { readerFailure ??= err; });
  const name = collection.collection;
  return inTransaction(ctx.db, async (trx) => {
    // Batches of IMPORT_BATCH_SIZE rows, their audit rows and unique checks over a large table: the long budget.
    await allowLongStatements(trx, ctx.config);
    const tctx: ServiceContext = { ...ctx, db: trx };
    let row = 0;
    let imported = 0;
    let batch: Record<string, unknown>[] = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      imported += await writeBatch(tctx, trx, name, rows, row - rows.length + 1);
    };
    let sinkFailure: unknown = null;
    try {
      await runPipeline([source, ...stages, decoder, reader], async (records) => {
        try {
          for await (const record of records) {
            row++;
            batch.push(payloadOf(collection, format, record, row));
            if (batch.length >= batchSize) await flush();
          }
        } catch (err) {
          sinkFailure = err;
          throw err;
        }
      });
    } catch (err) {
      // The pipeline may report the abort it caused in the other stages instead of the consumer's own error.
      if (sinkFailure !== null) throw sinkFailure;
      if (decoder.bytes === 0 && !(err instanceof ServiceError)) throw emptyFile();
      if (err === readerFailure) throw format === 'csv' ? csvError(err) : jsonError(err);
      throw err;
    }
    await flush();
    if (decoder.bytes === 0) throw emptyFile();
    return imported;
  });
}

/** One parsed record as an item payload: a CSV record's cells converted per field, a JSON element as it is. */
function payloadOf(collection: CollectionOverview, format: ImportFormat, record: unknown, row: number): Record<string, unknown> {
  if (format === 'csv') return csvRecordToPayload(collection, record as Record<string, Cell>, row);
  const value = (record as { value: unknown }).value;
  if (!isPlainObject(value)) throw new InvalidPayloadError(`Invalid payload. Row ${row}: an item must be an object.`, { row });
  return value;
}

/** stream.pipeline over a list of stages ending in an async consumer (its typings only take fixed arities). */
function runPipeline(streams: (Readable | Duplex)[], sink: (source: AsyncIterable<unknown>) => Promise<void>): Promise<void> {
  return (pipeline as unknown as (...args: unknown[]) => Promise<void>)(...streams, sink);
}

function emptyFile(): InvalidPayloadError {
  return new InvalidPayloadError('Invalid payload. The file is empty.');
}
