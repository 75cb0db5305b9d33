/** Drafts (versions) of an item through /versions: the rows the editor reads, what the caller may do with one (the
 * API's rules of docs/versions-and-workflow.md, so the Studio offers only what will be allowed; the API still has
 * the last word), and the API's refusals in plain words. */
import { queryOptions } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';
import { ApiError, messageOf } from '../../../api/errors.ts';
import type { Capabilities } from '../../../app/capabilities.ts';

export type VersionStatus = 'draft' | 'pending' | 'approved' | 'rejected';

export interface Version {
  id: string;
  key: string;
  name: string | null;
  collection: string;
  item: string;
  status: VersionStatus;
  user_created: string | null;
  date_created: string | null;
  date_updated: string | null;
  /** The hash of the item the delta was last saved against; null while the item has no row (new content). */
  hash: string | null;
}

export const VERSION_FIELDS = ['id', 'key', 'name', 'collection', 'item', 'status', 'user_created', 'date_created', 'date_updated', 'hash'];

/** The switcher shows at most this many drafts of one item, the newest first. */
export const VERSION_LIST_LIMIT = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isVersionId = (text: string): boolean => UUID.test(text);

/** Query keys start with 'versions' and the collection, so a save of the collection's items refreshes them too. */
export function versionsOfItemQuery(collection: string, item: string) {
  return queryOptions({
    queryKey: ['versions', collection, 'item', item],
    queryFn: ({ signal }) => request<Version[]>('GET', '/versions', {
      query: { filter: { collection: { _eq: collection }, item: { _eq: item } }, fields: VERSION_FIELDS, sort: '-date_created', limit: VERSION_LIST_LIMIT },
      signal,
    }),
  });
}

/** Drafts of items that have no row yet (their hash is null until the item exists), for the new-item page. */
export function newContentDraftsQuery(collection: string) {
  return queryOptions({
    queryKey: ['versions', collection, 'new-content'],
    queryFn: ({ signal }) => request<Version[]>('GET', '/versions', {
      query: {
        filter: { _and: [{ collection: { _eq: collection } }, { hash: { _null: true } }, { status: { _neq: 'approved' } }] },
        fields: VERSION_FIELDS, sort: '-date_created', limit: VERSION_LIST_LIMIT,
      },
      signal,
    }),
  });
}

export function versionQuery(collection: string, id: string) {
  return queryOptions({
    queryKey: ['versions', collection, 'one', id],
    queryFn: ({ signal }) => request<Version & { delta: Record<string, unknown> | null }>('GET', `/versions/${encodeURIComponent(id)}`, {
      query: { fields: [...VERSION_FIELDS, 'delta'] }, signal,
    }),
  });
}

export const STATUS_LABEL: Record<VersionStatus, string> = {
  draft: 'Draft',
  pending: 'In review',
  approved: 'Approved',
  rejected: 'Rejected',
};

export function versionTitle(v: Pick<Version, 'name' | 'key'>): string {
  return v.name?.trim() || v.key;
}

export interface VersionRights {
  edit: boolean;
  submit: boolean;
  promote: boolean;
  delete: boolean;
  /** Why the form is read only, in a sentence (null when it is not). */
  readOnlyReason: string | null;
}

/** What the caller may do with a version (docs/versions-and-workflow.md > Who may do what). */
export function versionRights(v: Version, caps: Capabilities, me: string | undefined): VersionRights {
  const creator = me !== undefined && v.user_created === me;
  const author = (caps.admin || creator) && caps.has('versioning:create');
  const open = v.status === 'draft' || v.status === 'rejected';
  const manage = caps.has('versioning:manage');
  let readOnlyReason: string | null = null;
  if (v.status === 'pending') readOnlyReason = 'This draft is waiting for review, so it cannot be changed. If a reviewer rejects it, it can be edited and submitted again.';
  else if (v.status === 'approved') readOnlyReason = 'This draft was approved and its changes are in the item now, so it can no longer be changed.';
  else if (!caps.has('versioning:create')) readOnlyReason = 'You may look at drafts but not change them.';
  else if (!author) readOnlyReason = 'Only the person who created this draft, or an administrator, can change it.';
  return {
    edit: author && open,
    submit: author && open,
    promote: v.status !== 'approved' && (manage || (creator && caps.has('versioning:create') && v.status !== 'pending')),
    delete: manage && open,
    readOnlyReason,
  };
}

/** The API's refusals of version actions, as people read them. */
export function versionErrorText(err: unknown): string {
  if (err instanceof ApiError) {
    const reason = err.items[0]?.reason;
    if (reason === 'empty_delta') return 'This draft has no changes yet. Change a field and save the draft, then submit it.';
    if (reason === 'workflow_running') return 'A review of this draft is already under way.';
    if (reason === 'invalid_status') return 'This draft is no longer open for changes: it was submitted or approved meanwhile. Its current state is shown now.';
    if (err.code === 'RECORD_NOT_UNIQUE') return 'This item already has a draft with that key. Choose another key.';
    if (err.status === 403) return 'You do not have permission to do that with this draft (or it no longer exists).';
  }
  return messageOf(err);
}

/** A version's key from its name: lower case, a-z 0-9 and dashes, at most 64 characters (the API's slug). */
export function keyFromName(name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64).replace(/-+$/, '');
}

export const KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;
