/** The embedded engine in a worker thread. PGlite is Postgres compiled to WASM and runs a statement synchronously, so
 * in the server's own thread one slow statement (a LIKE over large text, a big sort) stops every request, timer and
 * socket of the process until it ends. Here a worker_threads Worker owns the PGlite instance and the main thread only
 * posts statements to it and awaits the answers: the event loop keeps serving while the engine works.
 *
 * What crosses between the threads is structured-cloned: rows keep their JS types (Date, bigint for int8, Uint8Array
 * for bytea, parsed JSON, numeric as PGlite's string), a dump crosses as a Blob. An error's Postgres fields (code,
 * detail, constraint, table, column, schema, ...) are copied one by one, since a cloned Error keeps only its message,
 * and set again on an Error in this thread, so core/errors.ts maps it as before. If the worker dies, every waiting and
 * later call fails with EngineStoppedError instead of waiting forever.
 *
 * The worker's code is a plain JavaScript string evaluated by the Worker, so it runs the same from the TypeScript
 * sources (tsx, vitest), from dist/ and from a bundle, with no file to resolve beside this one. */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The URL of a PGlite module's ES build, for a thread or process that imports it by URL. Node resolves it with
 * import.meta.resolve; the test runner's module loader does not support that, so there the CommonJS resolution is
 * mapped to the ES file beside it (the package's exports pair `./dist/x.cjs` with `./dist/x.js`). */
export function pgliteModuleUrl(specifier: string): string {
  try {
    return import.meta.resolve(specifier);
  } catch {
    return pathToFileURL(createRequire(import.meta.url).resolve(specifier).replace(/\.cjs$/, '.js')).href;
  }
}

export interface EngineResult {
  rows: unknown[];
  affectedRows?: number;
}

export interface EngineOptions {
  /** The data dir (`${DATA_DIR}/pg`), or undefined for memory. */
  dataDir?: string;
  loadDataDir?: Blob;
  /** Added after PGlite's default start parameters (`-c name=value` pairs). */
  startParams: readonly string[];
}

/** The engine's thread exited or failed: no statement can run any more in this process. */
export class EngineStoppedError extends Error {
  constructor(reason: string) {
    super(`The embedded database engine stopped (${reason}); restart the server.`);
    this.name = 'EngineStoppedError';
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
/** Own fields of an error, without the stack and PGlite's query options (they may hold functions). */
function errorFields(err) {
  if (typeof err !== 'object' || err === null) return { message: String(err) };
  const out = { message: String(err.message), name: String(err.name) };
  for (const key of Object.getOwnPropertyNames(err)) {
    if (key === 'stack' || key === 'queryOptions' || key === 'message' || key === 'name') continue;
    const value = err[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    out[key] = value;
  }
  return out;
}
function reply(id, body) {
  try {
    parentPort.postMessage({ id, ...body });
  } catch (cloneErr) {
    // Something in the answer can't be cloned (an error's params): send what can be.
    if (body.error) { const { params, ...rest } = body.error; parentPort.postMessage({ id, error: rest }); }
    else parentPort.postMessage({ id, error: errorFields(cloneErr) });
  }
}
(async () => {
  let pg;
  try {
    const [{ PGlite }, { pg_trgm }] = await Promise.all([import(workerData.pglite), import(workerData.pgTrgm)]);
    pg = await PGlite.create(workerData.dataDir, {
      extensions: { pg_trgm },
      startParams: [...PGlite.defaultStartParams, ...workerData.startParams],
      ...(workerData.loadDataDir ? { loadDataDir: workerData.loadDataDir } : {}),
    });
    await pg.exec("set time zone 'UTC'");
  } catch (err) {
    parentPort.postMessage({ id: 0, error: errorFields(err) });
    return;
  }
  parentPort.on('message', async (m) => {
    try {
      if (m.op === 'query') {
        const res = await pg.query(m.sql, m.params);
        reply(m.id, { result: { rows: res.rows, affectedRows: res.affectedRows } });
      } else if (m.op === 'exec') {
        const res = (await pg.exec(m.sql)).at(-1);
        reply(m.id, { result: res ? { rows: res.rows, affectedRows: res.affectedRows } : { rows: [], affectedRows: 0 } });
      } else if (m.op === 'dump') {
        reply(m.id, { result: await pg.dumpDataDir('gzip') });
      } else if (m.op === 'close') {
        await pg.close();
        reply(m.id, { result: null });
        parentPort.close();
      }
    } catch (err) {
      reply(m.id, { error: errorFields(err) });
    }
  });
  parentPort.postMessage({ id: 0, result: null });
})();
`;

type Pending = { resolve: (value: any) => void; reject: (err: Error) => void };

/** An Error in this thread carrying the fields the worker's error had (code, detail, constraint, ...). */
function rebuildError(fields: Record<string, unknown>): Error {
  const err = new Error(String(fields.message));
  for (const [key, value] of Object.entries(fields)) {
    if (key !== 'message') Object.defineProperty(err, key, { value, writable: true, configurable: true, enumerable: key !== 'name' });
  }
  return err;
}

/** The main thread's side: one Worker, calls answered in the order they were posted. */
export class PgliteWorker {
  /** TypeScript-private rather than #private so a test can end the thread as a crash would. */
  private readonly worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #stopped: EngineStoppedError | null = null;
  #closing = false;
  #closed: Promise<void> | undefined;

  private constructor(worker: Worker) {
    this.worker = worker;
    // Held only while a call is waiting, as PGlite in this thread never kept the process alive on its own.
    worker.unref();
    worker.on('message', (m: { id: number; result?: unknown; error?: Record<string, unknown> }) => {
      const call = this.#pending.get(m.id);
      if (!call) return;
      this.#settled(m.id);
      if (m.error) call.reject(rebuildError(m.error));
      else call.resolve(m.result);
    });
    worker.on('error', (err) => this.#stop(`error: ${err instanceof Error ? err.message : String(err)}`));
    worker.on('messageerror', (err) => this.#stop(`unreadable message: ${err.message}`));
    worker.on('exit', (code) => this.#stop(this.#closing ? 'closed' : `its thread exited with code ${code}`));
  }

  /** Starts the worker and waits until PGlite is open (or throws PGlite's error). */
  static async start(opts: EngineOptions): Promise<PgliteWorker> {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pglite: pgliteModuleUrl('@electric-sql/pglite'),
        pgTrgm: pgliteModuleUrl('@electric-sql/pglite/contrib/pg_trgm'),
        dataDir: opts.dataDir,
        loadDataDir: opts.loadDataDir,
        startParams: opts.startParams,
      },
    });
    const engine = new PgliteWorker(worker);
    try {
      await engine.#call(0);
    } catch (err) {
      await worker.terminate();
      throw err;
    }
    return engine;
  }

  query(sql: string, params: readonly unknown[]): Promise<EngineResult> {
    return this.#post({ op: 'query', sql, params });
  }

  /** Parameterless text on the simple protocol (it may hold several statements): the last statement's result. */
  exec(sql: string): Promise<EngineResult> {
    return this.#post({ op: 'exec', sql });
  }

  dump(): Promise<Blob> {
    return this.#post({ op: 'dump' });
  }

  /** Closes PGlite and ends the thread; later calls fail with EngineStoppedError. Safe to call more than once. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    if (this.#stopped) return;
    this.#closing = true;
    try {
      await this.#post({ op: 'close' });
    } finally {
      await this.worker.terminate();
    }
  }

  #post<T>(message: { op: string; sql?: string; params?: readonly unknown[] }): Promise<T> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    const answer = this.#call<T>(id);
    try {
      this.worker.postMessage({ id, ...message });
    } catch (err) {
      // A parameter that can't be cloned (a function, a class with private state): nothing was sent.
      const call = this.#pending.get(id);
      this.#settled(id);
      call?.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return answer;
  }

  #call<T>(id: number): Promise<T> {
    if (this.#pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
  }

  #settled(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.worker.unref();
  }

  #stop(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = new EngineStoppedError(reason);
    for (const [id, call] of this.#pending) {
      this.#settled(id);
      call.reject(this.#stopped);
    }
  }
}
