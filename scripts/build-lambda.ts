/** Bundles functions/lambda.ts the way SST does for `nodejs: { format: 'esm' }` on nodejs20.x/arm64: one ESM file,
 * Node 20 syntax, a `require` shim for CommonJS dependencies inside ESM, and native or embedded-database packages
 * left external (installed for the Lambda platform, or never loaded there).
 *
 * `npm run build:lambda [-- --outdir <dir>]` writes <dir>/index.mjs (default .build/lambda) and prints its size and
 * the size of the externals it expects at runtime. `buildLambda()` is what test/lambda/bundle.test.ts and
 * test/bench/lambda-cold-start.ts call. */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Packages the bundle does not contain:
 * - native addons (`.node` binaries per platform): installed for linux-arm64 next to the bundle (SST `nodejs.install`);
 * - @electric-sql/pglite: the Lambda always has DATABASE_URL, and core/db/database.ts imports PGlite lazily, only
 *   when there is none — so it is never loaded there (it would add ~10 MB of WASM and data files);
 * - pg-native: the optional native binding `pg` tries lazily; the pure-JS client is used.
 * The AWS SDK v3 clients are bundled (as SST does): the copy in the nodejs20.x runtime is whatever version AWS ships
 * at the time, and a bundled, tree-shaken client pins the version tested and is loaded from one file. */
export const EXTERNALS = ['sharp', '@node-rs/argon2', '@electric-sql/pglite', '@electric-sql/pglite/contrib/pg_trgm', 'pg-native'] as const;

/** Externals the bundle actually loads at runtime (PGlite and pg-native are never loaded in the Lambda). */
export const RUNTIME_EXTERNALS = ['sharp', '@node-rs/argon2'] as const;

export interface LambdaBuild {
  /** The entry, index.mjs: what the runtime imports. */
  outfile: string;
  /** The entry plus the chunks it imports statically: what a cold start reads and compiles. */
  bytes: number;
  /** Every .mjs file written (entry and all chunks). */
  totalBytes: number;
  /** The source files (relative to the checkout) in what a cold start reads: the entry and its static chunks. */
  coldStartInputs: string[];
  /** Bytes on disk of each runtime external installed here (with its platform binary packages). */
  externals: Record<string, number>;
  metafile: Metafile;
}

/** `entry`: another handler module bundled the same way (the cold-start bench's raw reference). */
export async function buildLambda(outdir = join(ROOT, '.build/lambda'), entry = join(ROOT, 'functions/lambda.ts')): Promise<LambdaBuild> {
  const outfile = join(outdir, 'index.mjs');
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT, // metafile paths are relative to it
    entryPoints: { index: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    // Code reached only through import() (migrations, the mail SDK, exifr, ...) goes to chunks/ and is neither read
    // nor compiled at a cold start (SST: `nodejs: { splitting: true }`).
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: process.env.LAMBDA_MINIFY !== 'false',
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'none',
    // Some CommonJS dependencies call require() for Node built-ins; ESM has no `require`.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
    // Node's own resolution (package `exports` with the `import` condition, then `main`). Preferring the `module`
    // field, as some bundler set-ups do, breaks pg: pg-pool's ESM wrapper then sees pg's CommonJS default wrong.
    external: [...EXTERNALS],
    logLevel: 'warning',
  });
  const outputs = result.metafile.outputs;
  const key = (file: string) => Object.keys(outputs).find((k) => resolve(ROOT, k) === resolve(file))!;
  const loaded = new Set<string>();
  const visit = (k: string) => {
    if (loaded.has(k)) return;
    loaded.add(k);
    for (const i of outputs[k]!.imports) if (i.kind === 'import-statement' && !i.external) visit(key(resolve(ROOT, i.path)));
  };
  visit(key(outfile));
  const bytes = [...loaded].reduce((sum, k) => sum + outputs[k]!.bytes, 0);
  const coldStartInputs = [...loaded].flatMap((k) => Object.keys(outputs[k]!.inputs));
  const totalBytes = Object.entries(outputs).filter(([k]) => k.endsWith('.mjs')).reduce((sum, [, o]) => sum + o.bytes, 0);
  const externals: Record<string, number> = {};
  for (const name of RUNTIME_EXTERNALS) externals[name] = packageBytes(name);
  return { outfile, bytes, totalBytes, coldStartInputs, externals, metafile: result.metafile };
}

/** On-disk size of an installed package plus its installed platform packages (`@node-rs/argon2-linux-x64-gnu`,
 * `@img/sharp-linux-x64`, ...); on Lambda those are the linux-arm64 ones, of similar size. */
function packageBytes(name: string): number {
  const nm = join(ROOT, 'node_modules');
  const dirs = [join(nm, name)];
  const pkg = JSON.parse(readFileSync(join(nm, name, 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string>; dependencies?: Record<string, string> };
  for (const dep of Object.keys({ ...pkg.optionalDependencies, ...pkg.dependencies })) {
    if (existsSync(join(nm, dep))) dirs.push(join(nm, dep));
  }
  return dirs.reduce((sum, d) => sum + dirBytes(d), 0);
}

function dirBytes(dir: string): number {
  let sum = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) sum += dirBytes(p);
    else if (entry.isFile()) sum += statSync(p).size;
  }
  return sum;
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--outdir');
  const out = await buildLambda(i > 0 ? resolve(process.argv[i + 1]) : undefined);
  console.log(`bundle   ${out.outfile}: ${out.bytes} bytes (${mb(out.bytes)}) loaded at a cold start; ${out.totalBytes} bytes (${mb(out.totalBytes)}) with the lazily imported chunks`);
  let total = 0;
  for (const [name, bytes] of Object.entries(out.externals)) {
    total += bytes;
    console.log(`external ${name}: ${bytes} bytes (${mb(bytes)}) installed here, loaded lazily at runtime`);
  }
  console.log(`external total: ${total} bytes (${mb(total)}); not loaded in the Lambda: @electric-sql/pglite, pg-native`);
  const inputs = Object.entries(out.metafile.outputs).filter(([k]) => k.endsWith('.mjs')).flatMap(([, o]) => Object.entries(o.inputs));
  const byPackage = new Map<string, number>();
  for (const [file, { bytesInOutput }] of inputs) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    const key = m ? m[1]! : file.split('/').slice(0, 2).join('/');
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  console.log('largest parts of the bundle:');
  for (const [key, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${key}: ${mb(bytes)}`);
}
