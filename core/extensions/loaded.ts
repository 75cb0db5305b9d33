/** What the extension host of this process found at boot, per database (keyed by its root executor): each extension's
 * type and description from its manifest, and whether it loaded. GET /extensions adds it to the stored records
 * (core/extensions/records.ts) so an admin sees what each extension is and why one is not running; kept apart
 * from the host so reading it does not load the host's code. */
export interface LoadedExtension {
  type: 'hook' | 'endpoint' | null;
  description: string | null;
  version: string | null;
  /** loaded; failed (with `error`); disabled (enabled = false at boot); missing (its folder is gone). */
  status: 'loaded' | 'failed' | 'disabled' | 'missing';
  error?: string;
}

const byDatabase = new WeakMap<object, Map<string, LoadedExtension>>();

/** Called by the host after each boot: the latest boot of a database's services is what its process runs. */
export function rememberLoaded(database: object, byId: Map<string, LoadedExtension>): void {
  byDatabase.set(database, byId);
}

export function loadedExtension(database: object, id: string): LoadedExtension | undefined {
  return byDatabase.get(database)?.get(id);
}
