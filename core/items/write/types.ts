/** Shared shapes of the write path. */
import type { Transaction } from 'kysely';
import type { Accountability } from '../../access/accountability.ts';
import type { PermissionSet } from '../../access/permissions.ts';
import type { ServiceContext } from '../../context.ts';
import type { SchemaOverview } from '../../schema/types.ts';
import type { ActivityLog } from './activity.ts';

export type PrimaryKey = string | number;

export type Payload = Record<string, unknown>;

/** Options a caller (versions, workflow) may add to a write. */
export interface WriteOptions {
  /** svc_versions id stamped on the revisions (set when a version is promoted). */
  version?: string;
}

/** What payload validation needs: no database. */
export interface ValidationContext {
  readonly schema: SchemaOverview;
  readonly accountability: Accountability;
  readonly permissions: PermissionSet;
}

/** Everything one write operation carries through its nested writes, inside one transaction. */
export interface WriteContext extends ValidationContext {
  readonly trx: Transaction<any>;
  /** The caller's ServiceContext with db = trx (for services such as selectKeys). */
  readonly service: ServiceContext;
  readonly activity: ActivityLog;
  readonly maxMutations: number;
  readonly maxDepth: number;
  /** Rows written so far by this operation, nested ones included. */
  mutations: number;
}
