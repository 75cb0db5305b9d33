/** A configuration section of a snapshot (roles, policies, settings ...): how its rows are read without generated ids,
 * matched by a stable key, and written back through the core module that owns the table, inside the apply's
 * transaction. */
import type { ServiceContext } from '../../../context.ts';

export type Row = Record<string, unknown>;

export interface ConfigSection {
  name: string;
  /** The fields of a row that identify it across databases (never a generated id). Empty: a single object. */
  keyFields: readonly string[];
  /** The section is one object (settings), not a list. */
  single?: boolean;
  /** The rows as a snapshot holds them: ids left out, references by name (roles, policies) or email (users). */
  read(ctx: ServiceContext): Promise<Row[]>;
  /** A row of a posted snapshot: its shape checked (400 naming `where`). */
  check(row: Row, where: string): void;
  /** Orders the rows to create (a parent role before its children). */
  createOrder?(rows: Row[]): Row[];
  create(ctx: ServiceContext, row: Row): Promise<void>;
  update(ctx: ServiceContext, from: Row, to: Row): Promise<void>;
  remove(ctx: ServiceContext, row: Row): Promise<void>;
  /** Removing this row loses data, so it needs allow_destructive (every config deletion does; settings can't be). */
  describeRemoval?(row: Row): string;
}
