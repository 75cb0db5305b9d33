/** `npm start`: runs the server from compiled JavaScript (dist/), compiling it first when it is missing or older than
 * a source file. Running the TypeScript sources through tsx would cost ~100MB more RSS (its loader thread and
 * transpiled sources held in memory) for the life of the process; the check costs a few milliseconds and the compile
 * (`tsc -p tsconfig.build.json`, ~15-30 s) happens once after an install or an edit. Without TypeScript installed
 * (`npm ci --omit=dev`) and without a current dist/, the sources run through tsx. The server runs in this process:
 * no wrapper stays resident. `npm run dev` watches the sources instead. The Studio (studio/) is built the same way,
 * when missing or stale (./build-studio.mjs). */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureStudio } from './build-studio.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const stamp = join(dist, '.compiled');
const SOURCE_DIRS = ['core', 'functions', 'container', 'migrations'];
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The newest modification time among the sources the build compiles, and the files that shape it. */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') || entry.name.endsWith('.sql')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir));
  for (const file of CONFIG_FILES) if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

const current = () => existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource();

function typescriptCompiler() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return null;
  }
}

if (!current()) {
  const tsc = typescriptCompiler();
  if (tsc) {
    console.log('Compiling the sources to dist/ (once after an install or a change; `npm run dev` runs them directly)...');
    const started = Date.now();
    rmSync(dist, { recursive: true, force: true });
    const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
      console.error('Compiling failed (errors above): fix them, or run the sources with `npm run dev`.');
      process.exit(1);
    }
    writeFileSync(stamp, '');
    console.log(`Compiled in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
}

// The Studio at /admin: built with Vite when missing or stale (a failed build leaves the API serving).
try {
  ensureStudio();
} catch (err) {
  console.error(`${err.message} The API starts; /admin answers 503 until \`npm run build:studio\` succeeds.`);
}

if (current()) {
  await import(pathToFileURL(join(dist, 'container', 'main.js')).href);
} else {
  // No TypeScript compiler here (production install) and no current dist/: run the sources.
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'container', 'main.ts')).href);
}
