/** The permissions the planner takes as input: a caller's resolved permission per collection and action. The
 * planner (below access/ in the import order) owns this shape; access/permissions.ts builds it. */
import type { Filter } from './types.ts';

export type PermissionAction = 'create' | 'read' | 'update' | 'delete' | 'share';

export interface ResolvedPermission {
  /** Row filter to apply on read; null = every row. */
  filter: Filter | null;
  /** Allowed field names; null = all fields. */
  fields: Set<string> | null;
  validation: Filter | null;
  presets: Record<string, unknown> | null;
}

/** All of a caller's permissions, loaded once, answered synchronously (the query planner is pure). */
export interface PermissionSet {
  get(collection: string, action: PermissionAction): ResolvedPermission | null;
  /** True when a row filter uses $NOW, so statements built from it cannot be reused later. */
  readonly clockDependent: boolean;
}
