/** The schema changes this module makes, over the public API, and what follows each: the cached collections, fields
 * and relations are read again, so the content module (and every screen here) shows the new model at once. */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';

export async function refreshSchema(queryClient: QueryClient): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: ['collections'] }),
    queryClient.invalidateQueries({ queryKey: ['fields'] }),
    queryClient.invalidateQueries({ queryKey: ['relations'] }),
  ]);
}

export function useRefreshSchema(): () => Promise<void> {
  const queryClient = useQueryClient();
  return () => refreshSchema(queryClient);
}

/** One request of a change made of several, and how to take it back if a later one fails. */
export interface Step {
  label: string;
  run(): Promise<unknown>;
  /** Removes what `run` made (called in reverse order after a later step failed). */
  undo?: () => Promise<unknown>;
}

/** A later step failed: what it was, the server's error, and whether everything made before it was removed. */
export class StepError extends Error {
  readonly step: string;
  override readonly cause: unknown;
  readonly leftovers: string[];
  constructor(step: string, cause: unknown, leftovers: string[]) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.step = step;
    this.cause = cause;
    this.leftovers = leftovers;
  }
}

/** Runs the steps in order; when one fails, undoes the ones done (last first) and throws a StepError. The API has
 * no transaction across requests (a field, then its relation), so this is how nothing stays half-made. */
export async function runSteps(steps: Step[]): Promise<void> {
  const done: Step[] = [];
  for (const step of steps) {
    try {
      await step.run();
      done.push(step);
    } catch (err) {
      const leftovers: string[] = [];
      for (const d of done.reverse()) {
        if (!d.undo) continue;
        try {
          await d.undo();
        } catch (undoErr) {
          // Gone already (a cascade of an earlier undo) is what was wanted.
          if (!(undoErr instanceof ApiError && (undoErr.status === 404 || undoErr.code === 'FIELD_NOT_FOUND' || undoErr.code === 'COLLECTION_NOT_FOUND'))) leftovers.push(d.label);
        }
      }
      throw new StepError(step.label, err, leftovers);
    }
  }
}

export const api = {
  createCollection: (body: Record<string, unknown>) => request('POST', '/collections', { body }),
  updateCollection: (collection: string, meta: Record<string, unknown>) => request('PATCH', `/collections/${encodeURIComponent(collection)}`, { body: { meta } }),
  updateCollections: (changes: { collection: string; meta: Record<string, unknown> }[]) => request('PATCH', '/collections', { body: changes }),
  deleteCollection: (collection: string) => request('DELETE', `/collections/${encodeURIComponent(collection)}`),
  createField: (collection: string, body: Record<string, unknown>) => request('POST', `/fields/${encodeURIComponent(collection)}`, { body }),
  updateField: (collection: string, field: string, body: Record<string, unknown>) => request('PATCH', `/fields/${encodeURIComponent(collection)}/${encodeURIComponent(field)}`, { body }),
  updateFields: (collection: string, changes: Record<string, unknown>[]) => request('PATCH', `/fields/${encodeURIComponent(collection)}`, { body: changes }),
  deleteField: (collection: string, field: string) => request('DELETE', `/fields/${encodeURIComponent(collection)}/${encodeURIComponent(field)}`),
  createRelation: (body: Record<string, unknown>) => request('POST', '/relations', { body }),
};

/** The server names a bad or taken name in its message ("Field "x" already exists…", ""field" must start…"): such an
 * error belongs under the name box. */
export function nameErrorOf(err: unknown, name: string, what: 'collection' | 'field'): string | null {
  if (!(err instanceof ApiError)) return null;
  const own = err.fieldErrors()[what];
  if (own) return own;
  const m = err.message;
  if (m.includes(`"${what}"`) || (m.includes(`"${name}"`) && /already exists|can't start|must start|is listed twice/i.test(m))) return m;
  return null;
}
