/** The Access module's records as the API answers them (/users, /roles, /policies, /permissions, /app-permissions,
 * /access), the short lists its pickers offer (roles, policies), and how their names read. Every list the module
 * shows is paged on the server; the pickers ask for at most PICKER_LIMIT names, sorted. */
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { requestList } from '../api/client.ts';
import type { Action } from '../content/schema.ts';

export type UserStatus = 'active' | 'invited' | 'suspended' | 'archived';

export const USER_STATUSES: readonly { value: UserStatus; label: string }[] = [
  { value: 'active', label: 'Active' },
  { value: 'invited', label: 'Invited' },
  { value: 'suspended', label: 'Suspended' },
  { value: 'archived', label: 'Archived' },
];

export function statusLabel(status: string | null | undefined): string {
  return USER_STATUSES.find((s) => s.value === status)?.label ?? (status ?? '—');
}

export interface UserRow {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  status: UserStatus;
  role: { id: string; name: string | null } | null;
  tfa_enabled: boolean | null;
  last_access: string | null;
}

export interface UserRecord {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  status: UserStatus;
  role: string | null;
  tfa_enabled: boolean | null;
  last_access: string | null;
  provider: string | null;
  require_password_change: boolean | null;
}

export interface RoleRecord {
  id: string;
  name: string;
  icon: string | null;
  description: string | null;
  parent: string | null;
  admin_access: boolean;
  app_access: boolean;
  tech_access: boolean;
  impersonate_access: boolean;
  enforce_tfa: boolean;
  service_account: boolean;
  protected: boolean;
  /** Policy ids, in their svc_access order. */
  policies: string[];
}

export interface PolicyRecord {
  id: string;
  name: string;
  icon: string | null;
  description: string | null;
  admin_access: boolean;
  app_access: boolean;
  ip_access: string[] | null;
}

export interface PermissionRow {
  id: number;
  policy: string;
  collection: string;
  action: Action;
  fields: string[] | null;
  permissions: Record<string, unknown> | null;
  validation: Record<string, unknown> | null;
  presets: Record<string, unknown> | null;
}

export interface AppPermissionRow {
  id: number;
  policy: string;
  module: string;
  action: string;
}

/** "Ada Lovelace", else the email, else a short id. */
export function userName(u: { first_name?: string | null; last_name?: string | null; email?: string | null; id: string }): string {
  const name = [u.first_name, u.last_name].filter(Boolean).join(' ').trim();
  return name || u.email || `User ${u.id.slice(0, 8)}`;
}

/** Built-in records carry Directus' translation keys ("$t:public_label"): shown as the word they stand for. */
export function recordName(name: string | null | undefined): string {
  if (!name) return 'Untitled';
  const key = /^\$t:(.+?)(?:_label)?$/.exec(name);
  if (!key) return name;
  const words = key[1].replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const PICKER_LIMIT = 500;

export interface NamedRecord { id: string; name: string }

// Read again whenever a picker opens (staleTime 0): another admin may have added one a moment ago.
export const roleOptionsQuery = queryOptions({
  queryKey: ['access', 'role-options'],
  staleTime: 0,
  queryFn: async ({ signal }) => (await requestList<NamedRecord & { admin_access: boolean }>('/roles', { fields: ['id', 'name', 'admin_access'], sort: ['name'], limit: PICKER_LIMIT }, signal)).data,
});

export const policyOptionsQuery = queryOptions({
  queryKey: ['access', 'policy-options'],
  staleTime: 0,
  queryFn: async ({ signal }) => (await requestList<NamedRecord & { admin_access: boolean; app_access: boolean; description: string | null }>(
    '/policies', { fields: ['id', 'name', 'admin_access', 'app_access', 'description'], sort: ['name'], limit: PICKER_LIMIT }, signal)).data,
});

export function useRoleOptions() {
  return useQuery(roleOptionsQuery);
}

export function usePolicyOptions() {
  return useQuery(policyOptionsQuery);
}

/** After a write: every cached list of the module is read again when next shown (the pickers and the lists). */
export function invalidateAccess(client: QueryClient): Promise<void> {
  return client.invalidateQueries({ queryKey: ['access'] });
}

export const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function when(value: string | null): string {
  if (!value) return 'Never';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : DATE_TIME.format(d);
}
