#!/usr/bin/env node
/** The `svc` command (package.json "bin"; docs/cli.md): container/cli/main.ts, its TypeScript run through tsx. */
import { register } from 'tsx/esm/api';

register();
const { buildProgram } = await import('../container/cli/main.ts');
process.exitCode = await buildProgram().run(process.argv.slice(2));
