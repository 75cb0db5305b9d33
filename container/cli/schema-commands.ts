/** `svc schema snapshot|diff|apply`: the schema as a file (YAML or JSON), the difference between a file and a
 * database or server, and bringing one to the file. */
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { summarizeDestructive } from '../../core/schema/snapshot/diff.ts';
import type { SchemaDiffResult } from '../../core/schema/snapshot/index.ts';
import { CliError, EXIT, type Output } from './output.ts';
import type { Target } from './target.ts';

type Format = 'json' | 'yaml';

function formatOf(file: string | undefined, given: string | undefined): Format {
  if (given !== undefined) {
    if (given !== 'json' && given !== 'yaml') throw new CliError(`--format must be json or yaml, not "${given}"`, EXIT.usage);
    return given;
  }
  return file && /\.json$/i.test(file) ? 'json' : 'yaml';
}

export async function readSnapshotFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`can't read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  try {
    return /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new CliError(`${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
}

export async function snapshotCommand(target: Target, out: Output, file: string | undefined, opts: { format?: string; include?: string }): Promise<void> {
  const format = formatOf(file, opts.format);
  const snapshot = await target.snapshot(opts.include);
  const text = format === 'json' ? `${JSON.stringify(snapshot, null, 2)}\n` : toYaml(snapshot, { aliasDuplicateObjects: false });
  if (!file) {
    process.stdout.write(text);
    return;
  }
  await writeFile(file, text);
  const sections = Object.keys((snapshot as { config?: object }).config ?? {});
  out.result({ file, collections: snapshot.collections.length, fields: snapshot.fields.length, relations: snapshot.relations.length, config: sections }, () => [
    `Wrote the schema of ${target.where} to ${file}: ${snapshot.collections.length} collections, ${snapshot.fields.length} fields, ${snapshot.relations.length} relations`
      + `${sections.length ? `, and the configuration sections ${sections.join(', ')}` : ''}.`,
  ]);
}

/** One line per changed object: + new, - removed, ~ changed (with the changed properties). */
export function describeDiff(d: SchemaDiffResult): string[] {
  const lines: string[] = [];
  const entry = (what: string, name: string, changes: SchemaDiffResult['diff']['collections'][number]['diff']): void => {
    const [first] = changes;
    if (changes.length === 1 && !first.path && first.kind === 'N') lines.push(`  + ${what} ${name}`);
    else if (changes.length === 1 && !first.path && first.kind === 'D') lines.push(`  - ${what} ${name}`);
    else lines.push(`  ~ ${what} ${name}: ${[...new Set(changes.map((c) => (c.path ?? []).slice(0, 2).join('.')))].join(', ')}`);
  };
  for (const c of d.diff.collections) entry('collection', c.collection, c.diff);
  for (const f of d.diff.fields) entry('field', `${f.collection}.${f.field}`, f.diff);
  for (const r of d.diff.relations) entry('relation', `${r.collection}.${r.field}`, r.diff);
  for (const [section, entries] of Object.entries(d.diff.config ?? {})) {
    for (const e of entries) entry(section, JSON.stringify(e.key), e.diff);
  }
  if (d.destructive.length) {
    lines.push('', 'Destructive (applied only with --allow-destructive):');
    for (const s of d.destructive) lines.push(`  ! ${s.description}`);
  }
  return lines;
}

export async function diffCommand(target: Target, out: Output, file: string, opts: { force?: boolean; exitCode?: boolean }): Promise<number> {
  const result = await target.diff(await readSnapshotFile(file), Boolean(opts.force));
  out.result(result ?? { diff: null }, () => (result
    ? [`${target.where} differs from ${file}:`, ...describeDiff(result)]
    : [`${target.where} matches ${file}.`]));
  return result && opts.exitCode ? EXIT.differs : EXIT.ok;
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export async function applyCommand(target: Target, out: Output, file: string, opts: { yes?: boolean; allowDestructive?: boolean; dryRun?: boolean; force?: boolean }): Promise<void> {
  const result = await target.diff(await readSnapshotFile(file), Boolean(opts.force));
  if (!result) {
    out.result({ applied: false, steps: [] }, () => [`Nothing to apply: ${target.where} already matches ${file}.`]);
    return;
  }
  const body = { hash: result.hash, diff: result.diff };
  // The plan, from a dry run on the target itself (rolled back there).
  const plan = (await target.apply(body, { dryRun: true, allowDestructive: opts.allowDestructive }))!;
  if (opts.dryRun) {
    out.result({ applied: false, ...plan }, () => [
      `Would apply ${plan.steps.length} steps to ${target.where}:`, ...plan.steps.map((s, i) => `  ${i + 1}. ${s}`),
      '', 'SQL:', ...plan.sql.map((s) => `  ${s};`),
      ...(plan.destructive.length ? ['', 'Destructive (needs --allow-destructive):', ...plan.destructive.map((d) => `  ! ${d.description}`)] : []),
    ]);
    return;
  }
  if (plan.destructive.length && !opts.allowDestructive) {
    throw new CliError(`the change loses data: it ${summarizeDestructive(plan.destructive)}. Nothing was changed; pass --allow-destructive to go ahead`);
  }
  out.say(`Applying ${plan.steps.length} steps to ${target.where}:`);
  for (const [i, s] of plan.steps.entries()) out.say(`  ${i + 1}. ${s}`);
  if (!opts.yes) {
    if (!process.stdin.isTTY) throw new CliError('not applied: pass --yes to apply without a question', EXIT.usage);
    if (!(await confirm('Apply these changes? [y/N] '))) throw new CliError('not applied: cancelled');
  }
  await target.apply(body, { allowDestructive: opts.allowDestructive });
  out.result({ applied: true, ...plan }, () => [`Applied ${plan.steps.length} steps to ${target.where}.`]);
}
