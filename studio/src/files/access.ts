/** What the signed-in user may do in the library (GET /permissions/me; admins everything). Controls for what is
 * not allowed are not shown; the server refuses them anyway. */
import { can, usePermissions, usePolicyGlobals } from '../content/schema.ts';

export interface FileAccess {
  known: boolean;
  upload: boolean;
  update: boolean;
  remove: boolean;
  createFolder: boolean;
  updateFolder: boolean;
  deleteFolder: boolean;
}

export function useFileAccess(): FileAccess {
  const perms = usePermissions();
  const globals = usePolicyGlobals();
  const known = Boolean(perms.data && globals.data);
  const admin = Boolean(globals.data?.admin_access);
  const has = (collection: string, action: 'create' | 'update' | 'delete') => known && can(perms.data, admin, collection, action);
  return {
    known,
    upload: has('svc_files', 'create'),
    update: has('svc_files', 'update'),
    remove: has('svc_files', 'delete'),
    createFolder: has('svc_folders', 'create'),
    updateFolder: has('svc_folders', 'update'),
    deleteFolder: has('svc_folders', 'delete'),
  };
}
