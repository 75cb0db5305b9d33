/** Where a collection's items live: user collections under /items, system collections at their own paths. */
const SYSTEM: Record<string, string> = {
  svc_files: '/files', svc_users: '/users', svc_folders: '/folders', svc_roles: '/roles', svc_policies: '/policies',
  svc_comments: '/comments', svc_revisions: '/revisions', svc_activity: '/activity', svc_presets: '/presets', svc_shares: '/shares',
  svc_notifications: '/notifications', svc_dashboards: '/dashboards', svc_panels: '/panels', svc_flows: '/flows', svc_operations: '/operations',
  svc_translations: '/translations', svc_versions: '/versions',
};

export function collectionPath(collection: string): string {
  return SYSTEM[collection] ?? `/items/${encodeURIComponent(collection)}`;
}
