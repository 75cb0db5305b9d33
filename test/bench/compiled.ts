/** The bench runs both servers as compiled JavaScript, as `npm start` runs the service: the service through
 * scripts/start.mjs (dist/, compiled when stale), a raw reference server transpiled here from its one .ts file to
 * test/.cache/bench/ (it imports only packages). Both get the same Node flags. */
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';

/** Node flags both servers run with: those of `npm start`. */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2'];

/** Transpiles `script` (relative to root) to test/.cache/bench/<name>.mjs when missing or older; returns its path. */
export function compiledReference(root: string, script: string): string {
  const source = join(root, script);
  const outDir = join(root, 'test', '.cache', 'bench');
  const out = join(outDir, basename(script).replace(/\.ts$/, '.mjs'));
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs) return out;
  const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    fileName: source,
  });
  mkdirSync(outDir, { recursive: true });
  writeFileSync(out, outputText);
  return out;
}
