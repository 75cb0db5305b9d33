/** Schema as code (admin only): the snapshot of this schema, the diff from it to another snapshot, and the apply of
 * a diff: one transaction under the schema lock, refused when the schema changed since the diff was made (its hash),
 * refused when it loses data unless allowed, and, as a dry run, rolled back after listing its steps and its SQL.
 * Configuration sections (config/index.ts) ride along when asked for: the snapshot holds them, the diff and its hash
 * cover the sections the posted snapshot holds, and apply runs their steps after the schema's, in the same
 * transaction. */
import type { Executor } from '../../db/database.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, InvalidPayloadError, ServiceError } from '../../errors.ts';
import { ddlRecorder, requireAdmin, withSchemaChange, type SchemaServiceContext } from '../ddl/context.ts';
import { fieldIndexName } from '../ddl/indexes.ts';
import { loadSchemaOverview } from '../load.ts';
import type { SchemaOverview } from '../types.ts';
import {
  applyConfigDiff, configDestructive, configParts, diffConfig, isEmptyConfigDiff, parseConfig, parseConfigDiff, planConfigSteps, readConfig,
  type ConfigDestructiveStep, type ConfigDiff, type ConfigSnapshot,
} from './config/index.ts';
import {
  applyDiffToParts, completeFrom, destructiveSteps, diffParts, isEmptyDiff, parseChange, parseDiffBody, parseSnapshot, partsOf, summarizeDestructive,
  type DestructiveStep, type SnapshotDiff,
} from './diff.ts';
import { planSteps } from './plan.ts';
import { readSnapshot, snapshotHash, type SchemaSnapshot, type SnapshotScope } from './snapshot.ts';

export { parseInclude, SECTION_NAMES } from './config/index.ts';
export type { ConfigDestructiveStep, ConfigDiff } from './config/index.ts';

export type { SchemaSnapshot } from './snapshot.ts';
export type { DestructiveStep, SnapshotDiff } from './diff.ts';

/** The snapshot as the database holds it now (not the cached overview: a diff's hash must match what apply reads
 * under the lock). */
export async function schemaSnapshot(ctx: SchemaServiceContext, opts: { include?: readonly string[]; includeCollections?: string[]; excludeCollections?: string[] } = {}): Promise<SchemaSnapshot> {
  requireAdmin(ctx);
  const scope: SnapshotScope = { include: opts.includeCollections, exclude: opts.excludeCollections };
  if (scope.include && scope.exclude) throw new InvalidPayloadError('"includeCollections" and "excludeCollections" can\'t be used together.');
  const schema = await loadSchemaOverview(ctx.db, 'snapshot');
  return withConfig(ctx, ctx.db, schema, await readSnapshot(ctx.db, schema, scope), opts.include ?? []);
}

/** An admin's service context on `db` (the pool, or an apply's transaction), for the configuration sections. */
function serviceContext(ctx: SchemaServiceContext, db: Executor, schema: SchemaOverview): ServiceContext {
  return { db, schema, accountability: ctx.accountability, config: ctx.config };
}

async function withConfig(ctx: SchemaServiceContext, db: Executor, schema: SchemaOverview, snapshot: SchemaSnapshot, sections: readonly string[]): Promise<SchemaSnapshot> {
  if (sections.length === 0) return snapshot;
  return { ...snapshot, config: await readConfig(serviceContext(ctx, db, schema), sections) };
}

export interface SchemaDiffResult {
  /** The hash of this schema: apply refuses the diff once the schema is no longer this one. */
  hash: string;
  diff: SnapshotDiff & { config?: ConfigDiff };
  /** The steps that lose data, listed apart: apply needs allow_destructive for them. */
  destructive: (DestructiveStep | ConfigDestructiveStep)[];
}

/** The diff from this schema to `snapshot`, or null when they are the same. */
export async function schemaDiff(ctx: SchemaServiceContext, snapshot: unknown, opts: { force?: boolean } = {}): Promise<SchemaDiffResult | null> {
  requireAdmin(ctx);
  const wanted = parseSnapshot(snapshot, opts.force);
  const wantedConfig = parseConfig((snapshot as { config?: unknown }).config);
  const current = await schemaSnapshot(ctx, { include: Object.keys(wantedConfig) });
  const from = partsOf(current);
  const desired = completeFrom(from, partsOf(wanted));
  const diff = diffParts(from, desired);
  const fromConfig = configParts((current.config ?? {}) as ConfigSnapshot);
  const toConfig = configParts(wantedConfig);
  const config = diffConfig(fromConfig, toConfig);
  if (isEmptyDiff(diff) && isEmptyConfigDiff(config)) return null;
  const destructive = [...destructiveSteps(from, desired), ...configDestructive(fromConfig, toConfig)];
  // Every managed section is listed (even with no change): apply hashes the same sections.
  return { hash: snapshotHash(current), diff: Object.keys(config).length ? { ...diff, config } : diff, destructive };
}

export interface ApplyReport {
  /** Each step, in the order run. */
  steps: string[];
  /** The DDL statements run (a dry run: that would run), indexes built after commit last. */
  sql: string[];
  destructive: (DestructiveStep | ConfigDestructiveStep)[];
}

export interface ApplyOptions {
  allowDestructive?: boolean;
  dryRun?: boolean;
}

class DryRunDone extends Error {}

export async function schemaApply(ctx: SchemaServiceContext, body: unknown, opts: ApplyOptions = {}): Promise<ApplyReport> {
  requireAdmin(ctx);
  const { hash, diff } = parseDiffBody(body);
  const configDiff = parseConfigDiff((body as { diff: { config?: unknown } }).diff.config, parseChange);
  const sections = Object.keys(configDiff);
  const sql: string[] = [];
  let report: ApplyReport | null = null;
  try {
    await ddlRecorder.run(sql, () => withSchemaChange(ctx, async (scope) => {
      const current = await withConfig(ctx, scope.trx, scope.schema, await readSnapshot(scope.trx, scope.schema), sections);
      if (snapshotHash(current) !== hash) {
        throw new ConflictError('The schema has changed since this diff was made. Make the diff again against the schema as it is now.');
      }
      const from = partsOf(current);
      const to = applyDiffToParts(from, diff);
      const fromConfig = configParts((current.config ?? {}) as ConfigSnapshot);
      const toConfig = applyConfigDiff(fromConfig, configDiff);
      const destructive = [...destructiveSteps(from, to), ...configDestructive(fromConfig, toConfig)];
      if (destructive.length && !opts.allowDestructive && !opts.dryRun) {
        throw new InvalidPayloadError(
          `The diff loses data: it ${summarizeDestructive(destructive)}. Nothing was changed: apply it with allow_destructive to go ahead.`,
          { destructive },
        );
      }
      const steps = planSteps(from, to);
      // Configuration after the schema, so a permission or a workflow can name a collection made just now.
      const configSteps = planConfigSteps(fromConfig, toConfig);
      const total = steps.length + configSteps.length;
      const failed = (i: number, label: string, err: unknown): unknown => (err instanceof ServiceError
        ? new InvalidPayloadError(`Step ${i + 1} of ${total} (${label}) failed: ${err.message} Nothing was changed.`, { step: label }, err.reason)
        : err);
      let schema = scope.schema;
      for (const [i, step] of steps.entries()) {
        // A phase sees what the phases before it made (plan.ts).
        if (i > 0 && (step.fresh || step.phase !== steps[i - 1].phase)) schema = await loadSchemaOverview(scope.trx, 'ddl');
        try {
          await step.run({ ...scope, schema });
        } catch (err) {
          throw failed(i, step.label, err);
        }
      }
      if (configSteps.length) {
        const svc = serviceContext(ctx, scope.trx, steps.length ? await loadSchemaOverview(scope.trx, 'ddl') : scope.schema);
        for (const [j, step] of configSteps.entries()) {
          try {
            await step.run(svc);
          } catch (err) {
            throw failed(steps.length + j, step.label, err);
          }
        }
      }
      report = { steps: [...steps, ...configSteps].map((s) => s.label), sql, destructive };
      if (opts.dryRun) {
        for (const j of scope.indexJobs) {
          sql.push(`create ${j.unique ? 'unique ' : ''}index ${fieldIndexName(j.collection, j.field, j.unique)} on ${j.collection} (${j.field}) -- after commit`);
        }
        throw new DryRunDone();
      }
    }));
  } catch (err) {
    if (!(err instanceof DryRunDone)) throw err;
  }
  return report!;
}
