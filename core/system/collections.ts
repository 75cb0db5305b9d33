/** The system collections served on their own paths (SPEC.md > System collection CRUD, Activity), each on
 * the items services with the caller's permissions (core/access: explicit records or the built-in grants). */

export interface SystemCollection {
  /** URL segment: /notifications, /activity ... */
  path: string;
  collection: string;
  /** Only list and single reads (activity and revisions are written by the write path, never through the API). */
  readOnly: boolean;
  /** Fields a create must carry (a clear INVALID_PAYLOAD instead of the database's not-null error). */
  required: string[];
  /** Writes change what authentication resolves (shares carry a role): bump the schema version after them. */
  invalidates: boolean;
}

function def(path: string, collection: string, opts: Partial<Omit<SystemCollection, 'path' | 'collection'>> = {}): SystemCollection {
  return { path, collection, readOnly: false, required: [], invalidates: false, ...opts };
}

export const SYSTEM_COLLECTIONS: readonly SystemCollection[] = [
  def('notifications', 'svc_notifications', { required: ['recipient', 'subject'] }),
  def('comments', 'svc_comments', { required: ['collection', 'item', 'comment'] }),
  def('translations', 'svc_translations', { required: ['language', 'key', 'value'] }),
  def('shares', 'svc_shares', { required: ['collection', 'item'], invalidates: true }),
  def('presets', 'svc_presets'),
  def('activity', 'svc_activity', { readOnly: true }),
  def('revisions', 'svc_revisions', { readOnly: true }),
];

/** /folders (SPEC.md > svc_folders): served by functions/routes/folders.ts, which refuses parent cycles before
 * the generic routes run. */
export const FOLDERS: SystemCollection = def('folders', 'svc_folders', { required: ['name'] });
