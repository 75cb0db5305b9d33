/** The order column of an O2M (svc_relations.sort_field on the many side), kept the way Directus' list
 * interfaces expect: a child appended to a parent by a nested write (created, or linked from another parent)
 * that does not set the sort field gets the next value after the parent's children, in payload order. An
 * explicit value (null included) is kept. Children that were already linked keep theirs. M2M and M2A
 * junctions are O2Ms, so their junction sort_field is kept the same way.
 *
 * Only numeric sort fields are counted, and only where the caller may write the field (otherwise the row
 * gets the column default, as before). The parent's current maximum is read once, when the first child
 * needs a value; a freshly created parent starts at 1. */
import { ident, run } from '../../db/database.ts';
import { NUMERIC_TYPES } from '../../schema/field-types.ts';
import type { FieldOverview } from '../../schema/types.ts';
import type { ToManyWrite } from './payload.ts';
import type { Payload, PrimaryKey, WriteContext } from './types.ts';

export class SortSequence {
  /** Next value to hand out; null until the parent's maximum is read. */
  #next: number | null;

  private constructor(
    private readonly w: WriteContext,
    private readonly t: ToManyWrite,
    private readonly parentKey: PrimaryKey,
    private readonly field: FieldOverview,
    fresh: boolean,
  ) {
    this.#next = fresh ? 1 : null;
  }

  /** The sequence of one O2M value, or null when the relation has no usable sort field. */
  static of(w: WriteContext, t: ToManyWrite, parentKey: PrimaryKey, fresh: boolean): SortSequence | null {
    const name = t.relation.meta.sort_field;
    if (!name || !Object.hasOwn(t.related.fields, name)) return null;
    const field = t.related.fields[name];
    if (field.alias || field.isPrimaryKey || !NUMERIC_TYPES.has(field.type)) return null;
    return new SortSequence(w, t, parentKey, field, fresh);
  }

  /** `payload` of a child, with the next sort value when the child is `appended` and sets none. An explicit
   * number moves the sequence past it, so later children still follow in payload order. */
  async apply(payload: Payload, appended: boolean, action: 'create' | 'update'): Promise<Payload> {
    const name = this.field.field;
    if (Object.hasOwn(payload, name) && payload[name] !== undefined) {
      const explicit = numeric(payload[name]);
      if (this.#next !== null && explicit !== null) this.#next = Math.max(this.#next, explicit + 1);
      return payload;
    }
    if (!appended || !this.writable(action)) return payload;
    this.#next ??= (await this.currentMax()) + 1;
    return { ...payload, [name]: this.#next++ };
  }

  private writable(action: 'create' | 'update'): boolean {
    // Without the permission the write itself is refused later; the sort value changes nothing there.
    const permission = this.w.permissions.get(this.t.related.collection, action);
    return !permission || permission.fields === null || permission.fields.has(this.field.field);
  }

  private async currentMax(): Promise<number> {
    const [row] = await run<{ max: unknown }>(this.w.trx,
      `select max(${ident(this.field.field)}) as max from ${ident(this.t.related.collection)} where ${ident(this.t.relation.field)} = $1`,
      [this.parentKey]);
    return numeric(row?.max) ?? 0;
  }
}

/** A finite number from a JSON number or a numeric string (decimal and bigint columns come back as text). */
function numeric(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : typeof value === 'bigint' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}
