/** Builds the Studio (studio/ -> studio/dist) with Vite when the build is missing or older than a source of it, and
 * writes a gzip and a brotli copy of each compressible asset beside it (served precompressed, container/studio.ts).
 * Used by `npm start` (scripts/start.mjs), by the test run's global setup, and as `npm run build:studio` (always
 * builds). Without Vite installed (`npm ci --omit=dev`) a missing build is reported, not fatal. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const studio = join(root, 'studio');
const out = join(studio, 'dist');
const stamp = join(out, '.built');
const INPUTS = ['src', 'index.html', 'vite.config.ts', 'tsconfig.json'];

function newest(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

export function studioCurrent() {
  if (!existsSync(stamp)) return false;
  let latest = existsSync(join(root, 'package-lock.json')) ? statSync(join(root, 'package-lock.json')).mtimeMs : 0;
  for (const input of INPUTS) if (existsSync(join(studio, input))) latest = Math.max(latest, newest(join(studio, input)));
  return statSync(stamp).mtimeMs >= latest;
}

function viteBin() {
  try {
    // vite/bin is not in the package's exports: find the package, then its bin.
    return join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    return null;
  }
}

function precompress(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) precompress(path);
    else if (/\.(js|css|html|svg|json|txt)$/.test(entry.name)) {
      const body = readFileSync(path);
      writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
      writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    }
  }
}

/** Builds when stale (or always with force); returns whether a usable build exists afterwards. */
export function ensureStudio({ force = false, log = console.log } = {}) {
  if (!force && studioCurrent()) return true;
  const vite = viteBin();
  if (!vite) {
    if (existsSync(join(out, 'index.html'))) return true;
    log('The Studio is not built and Vite is not installed (npm ci without --omit=dev builds it): /admin will answer 503.');
    return false;
  }
  log('Building the Studio (studio/ -> studio/dist, once after an install or a change)...');
  const started = Date.now();
  // Always React's production build: the test run sets NODE_ENV=test, which Vite would pass on to React (its
  // development build, several times slower, would then be what the browser journeys and their timings measure).
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', studio], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) throw new Error('Building the Studio failed (errors above).');
  precompress(join(out, 'assets'));
  writeFileSync(stamp, '');
  log(`Built the Studio in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  ensureStudio({ force: process.argv.includes('--force') });
}
