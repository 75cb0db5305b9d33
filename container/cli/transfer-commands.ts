/** `svc export <collection> [file]` and `svc import <collection> <file>`: items streamed to and from CSV or JSON with a
 * progress bar. An import goes in batches, each its own transaction; after each one the rows done are written beside
 * the file (`<file>.svc-import.json`), so an import that stopped goes on from there with --resume. */
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { PassThrough, Transform } from 'node:stream';
import { once } from 'node:events';
import { SingleBar, Presets } from 'cli-progress';
import { parse as parseCsv } from 'csv-parse';
import { stringify as csvLine } from 'csv-stringify/sync';
import streamArray from 'stream-json/streamers/stream-array.js';
import { CliError, EXIT, type Output } from './output.ts';
import type { Target } from './target.ts';

type Format = 'csv' | 'json';

function formatOf(file: string | undefined, given: string | undefined): Format {
  if (given !== undefined) {
    if (given !== 'csv' && given !== 'json') throw new CliError(`--format must be csv or json, not "${given}"`, EXIT.usage);
    return given;
  }
  return file && /\.csv$/i.test(file) ? 'csv' : 'json';
}

function bar(out: Output, format: string): SingleBar | null {
  if (out.json || !process.stderr.isTTY) return null;
  return new SingleBar({ format, hideCursor: true, clearOnComplete: false }, Presets.shades_classic);
}

export async function exportCommand(target: Target, out: Output, collection: string, file: string | undefined, opts: { format?: string }): Promise<void> {
  const format = formatOf(file, opts.format);
  const [counted] = await target.read(collection, { aggregate: { count: '*' } });
  const total = Number((counted?.count as number | undefined) ?? 0);
  const progress = file ? bar(out, `Exporting ${collection} |{bar}| {value}/{total} rows`) : null;
  progress?.start(total, 0);
  const sink = file ? createWriteStream(file) : process.stdout;
  let rows = 0;
  try {
    for await (const chunk of target.exportItems(collection, format)) {
      if (!sink.write(chunk)) await once(sink, 'drain');
      // Rows are a line each in CSV and in the database's JSON pages: near enough for the bar.
      rows += chunk.split('\n').length - 1;
      progress?.update(Math.min(rows, total));
    }
  } finally {
    progress?.update(total);
    progress?.stop();
    if (file) await new Promise<void>((resolve) => (sink as NodeJS.WritableStream).end(() => resolve()));
  }
  if (file) out.result({ collection, file, format, rows: total }, () => [`Exported ${total} items of ${collection} from ${target.where} to ${file}.`]);
}

interface Checkpoint { collection: string; size: number; mtimeMs: number; rows: number }

const checkpointOf = (file: string): string => `${file}.svc-import.json`;

async function readCheckpoint(file: string): Promise<Checkpoint | null> {
  try {
    return JSON.parse(await readFile(checkpointOf(file), 'utf8')) as Checkpoint;
  } catch {
    return null;
  }
}

/** The file's records, one at a time: objects of a JSON array, or arrays of CSV cells (the header first). */
function recordsOf(format: Format, source: NodeJS.ReadableStream): AsyncIterable<unknown> {
  if (format === 'csv') return source.pipe(parseCsv({ bom: true, relax_column_count: false }));
  const parser = streamArray.withParserAsStream();
  const values = new Transform({ objectMode: true, transform(chunk: { value: unknown }, _e, done) { done(null, chunk.value); } });
  source.pipe(parser).pipe(values);
  parser.on('error', (err: Error) => values.destroy(new CliError(`the file is not a JSON array of objects: ${err.message}`)));
  return values;
}

export async function importCommand(target: Target, out: Output, collection: string, file: string, opts: { format?: string; resume?: boolean; restart?: boolean; batchSize?: string }): Promise<void> {
  const format = formatOf(file, opts.format);
  const batchSize = Number(opts.batchSize ?? 500);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new CliError('--batch-size must be a whole number from 1 to 10000', EXIT.usage);
  let info;
  try {
    info = await stat(file);
  } catch {
    throw new CliError(`can't read ${file}: no such file`);
  }
  const saved = await readCheckpoint(file);
  let skip = 0;
  if (saved && !opts.restart) {
    if (saved.collection !== collection) {
      throw new CliError(`${checkpointOf(file)} is of an import into ${saved.collection}: pass --restart to import the whole file into ${collection}`, EXIT.usage);
    }
    const changed = saved.size !== info.size || saved.mtimeMs !== info.mtimeMs;
    if (!opts.resume) {
      throw new CliError(`an earlier import of ${file} stopped after ${saved.rows} items${changed ? ' (the file changed since)' : ''}: `
        + 'pass --resume to go on from there, or --restart to import the whole file again', EXIT.usage);
    }
    // A file corrected after a refused batch is the usual case; the items before keep their places.
    if (changed) out.say(`${file} changed since the earlier run: going on after its first ${saved.rows} items, as asked.`);
    skip = saved.rows;
  }
  const progress = bar(out, `Importing ${collection} |{bar}| {percentage}% | {rows} items`);
  progress?.start(info.size, 0, { rows: skip });
  const counter = new PassThrough();
  let bytes = 0;
  counter.on('data', (b: Buffer) => { bytes += b.length; });
  createReadStream(file).pipe(counter);

  let header: unknown[] | null = null;
  let batch: unknown[] = [];
  let seen = 0;
  let done = skip;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const text = format === 'csv' ? csvLine([header, ...batch] as unknown[][]) : JSON.stringify(batch);
    try {
      await target.importBatch(collection, format, text);
    } catch (err) {
      if (err instanceof CliError) {
        throw new CliError(`${err.message} (items ${done + 1}-${done + batch.length}; the ${done} before are in: --resume goes on from there)`);
      }
      throw err;
    }
    done += batch.length;
    batch = [];
    await writeFile(checkpointOf(file), JSON.stringify({ collection, size: info.size, mtimeMs: info.mtimeMs, rows: done } satisfies Checkpoint));
    progress?.update(bytes, { rows: done });
  };
  try {
    for await (const record of recordsOf(format, counter)) {
      if (format === 'csv' && header === null) {
        header = record as unknown[];
        continue;
      }
      if (format === 'json' && (record === null || typeof record !== 'object' || Array.isArray(record))) {
        throw new CliError(`item ${seen + 1} of ${file} is not an object`);
      }
      seen++;
      if (seen <= skip) continue;
      batch.push(record);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
  } finally {
    progress?.update(bytes, { rows: done });
    progress?.stop();
  }
  await rm(checkpointOf(file), { force: true });
  out.result({ collection, file, imported: done - skip, skipped: skip }, () => [
    `Imported ${done - skip} items into ${collection} on ${target.where}${skip ? ` (the first ${skip} were in from an earlier run)` : ''}.`,
  ]);
}
