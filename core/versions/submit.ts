/** POST /versions/{id}/submit (SPEC.md > Version status): draft or rejected -> pending, in one transaction
 * with the `versions.submit` filter (the workflow engine starts its instance there, in the same transaction,
 * and may refuse by throwing: the submit then rolls back) and the `versions.submit` action after commit.
 * The row is locked `for update`, so of concurrent submits exactly one wins; the others then see pending. */
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { requireAuthor } from './access.ts';
import { hasRunningWorkflow, loadVersion } from './rows.ts';
import { changeVersion } from './store.ts';
import { isEmptyDelta, type SubmitPayload } from './types.ts';

export const SUBMIT_EVENT = 'versions.submit';

function refused(reason: string, message: string, extra: Record<string, unknown> = {}): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. ${message}`, { reason, ...extra });
}

export async function submitVersion(ctx: ServiceContext, id: string): Promise<{ id: string; status: 'pending' }> {
  return inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    const version = await loadVersion(trx, id, { lock: true });
    if (!version) throw new ForbiddenError();
    await requireAuthor(t, version);
    if (version.status !== 'draft' && version.status !== 'rejected') {
      throw refused('invalid_status', `Only draft or rejected versions can be submitted; this one is ${version.status}.`, { status: version.status });
    }
    if (isEmptyDelta(version.delta)) throw refused('empty_delta', 'The version has no changes to submit.');
    if (await hasRunningWorkflow(trx, version.id)) throw refused('workflow_running', 'A workflow instance already runs for this version.');

    await changeVersion(t, version.id, { status: 'pending' });
    const payload: SubmitPayload = {
      id: version.id, key: version.key, name: version.name, collection: version.collection, item: version.item,
      delta: version.delta!, status: 'pending', user_created: version.user_created,
    };
    const meta = { collection: version.collection, keys: [version.id] };
    await ctx.events?.runFilters(SUBMIT_EVENT, payload, meta, t);
    ctx.events?.emitAction(trx, SUBMIT_EVENT, { ...meta, payload }, ctx.accountability);
    return { id: version.id, status: 'pending' as const };
  });
}
