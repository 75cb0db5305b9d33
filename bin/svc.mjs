#!/usr/bin/env node
/** The `svc` command (package.json "bin"; docs/cli.md). In a checkout it runs container/cli/main.ts through tsx; in
 * the image, which holds only the compiled dist/, it runs dist/container/cli/main.js. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../container/cli/main.ts', import.meta.url));
let cli;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../container/cli/main.ts');
} else {
  cli = await import('../dist/container/cli/main.js');
}
process.exitCode = await cli.buildProgram().run(process.argv.slice(2));
