/** Schema as code (admin only): the snapshot of this schema, the diff from it to another snapshot, and the apply of
 * a diff: one transaction under the schema lock, refused when the schema changed since the diff was made (its hash),
 * refused when it loses data unless allowed, and, as a dry run, rolled back after listing its steps and its SQL. */
import { ConflictError, InvalidPayloadError, ServiceError } from '../../errors.ts';
import { ddlRecorder, requireAdmin, withSchemaChange, type SchemaServiceContext } from '../ddl/context.ts';
import { fieldIndexName } from '../ddl/indexes.ts';
import { loadSchemaOverview } from '../load.ts';
import { completeFrom, applyDiffToParts, summarizeDestructive, destructiveSteps, diffParts, isEmptyDiff, parseDiffBody, parseSnapshot, partsOf, type DestructiveStep, type SnapshotDiff } from './diff.ts';
import { planSteps } from './plan.ts';
import { readSnapshot, snapshotHash, type SchemaSnapshot, type SnapshotScope } from './snapshot.ts';

export type { SchemaSnapshot } from './snapshot.ts';
export type { DestructiveStep, SnapshotDiff } from './diff.ts';

/** The snapshot as the database holds it now (not the cached overview: a diff's hash must match what apply reads
 * under the lock). */
export async function schemaSnapshot(ctx: SchemaServiceContext, scope: SnapshotScope = {}): Promise<SchemaSnapshot> {
  requireAdmin(ctx);
  if (scope.include && scope.exclude) throw new InvalidPayloadError('"includeCollections" and "excludeCollections" can\'t be used together.');
  return readSnapshot(ctx.db, await loadSchemaOverview(ctx.db, 'snapshot'), scope);
}

export interface SchemaDiffResult {
  /** The hash of this schema: apply refuses the diff once the schema is no longer this one. */
  hash: string;
  diff: SnapshotDiff;
  /** The steps that lose data, listed apart: apply needs allow_destructive for them. */
  destructive: DestructiveStep[];
}

/** The diff from this schema to `snapshot`, or null when they are the same. */
export async function schemaDiff(ctx: SchemaServiceContext, snapshot: unknown, opts: { force?: boolean } = {}): Promise<SchemaDiffResult | null> {
  requireAdmin(ctx);
  const current = await schemaSnapshot(ctx);
  const from = partsOf(current);
  const desired = completeFrom(from, partsOf(parseSnapshot(snapshot, opts.force)));
  const diff = diffParts(from, desired);
  if (isEmptyDiff(diff)) return null;
  return { hash: snapshotHash(current), diff, destructive: destructiveSteps(from, desired) };
}

export interface ApplyReport {
  /** Each step, in the order run. */
  steps: string[];
  /** The DDL statements run (a dry run: that would run), indexes built after commit last. */
  sql: string[];
  destructive: DestructiveStep[];
}

export interface ApplyOptions {
  allowDestructive?: boolean;
  dryRun?: boolean;
}

class DryRunDone extends Error {}

export async function schemaApply(ctx: SchemaServiceContext, body: unknown, opts: ApplyOptions = {}): Promise<ApplyReport> {
  requireAdmin(ctx);
  const { hash, diff } = parseDiffBody(body);
  const sql: string[] = [];
  let report: ApplyReport | null = null;
  try {
    await ddlRecorder.run(sql, () => withSchemaChange(ctx, async (scope) => {
      const current = await readSnapshot(scope.trx, scope.schema);
      if (snapshotHash(current) !== hash) {
        throw new ConflictError('The schema has changed since this diff was made. Make the diff again against the schema as it is now.');
      }
      const from = partsOf(current);
      const to = applyDiffToParts(from, diff);
      const destructive = destructiveSteps(from, to);
      if (destructive.length && !opts.allowDestructive && !opts.dryRun) {
        throw new InvalidPayloadError(
          `The diff loses data: it ${summarizeDestructive(destructive)}. Nothing was changed: apply it with allow_destructive to go ahead.`,
          { destructive },
        );
      }
      const steps = planSteps(from, to);
      let schema = scope.schema;
      for (const [i, step] of steps.entries()) {
        // A phase sees what the phases before it made (plan.ts).
        if (i > 0 && (step.fresh || step.phase !== steps[i - 1].phase)) schema = await loadSchemaOverview(scope.trx, 'ddl');
        try {
          await step.run({ ...scope, schema });
        } catch (err) {
          if (!(err instanceof ServiceError)) throw err;
          throw new InvalidPayloadError(`Step ${i + 1} of ${steps.length} (${step.label}) failed: ${err.message} Nothing was changed.`, { step: step.label }, err.reason);
        }
      }
      report = { steps: steps.map((s) => s.label), sql, destructive };
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
