/** Accumulates bound parameters and hands out table aliases while one statement is compiled. */
import { ident } from '../db/database.ts';
import type { FieldOverview } from '../schema/types.ts';

export class SqlBuilder {
  readonly params: unknown[] = [];
  #aliases = 0;

  /** A placeholder for a bound value, cast to the given Postgres type when one is given. */
  param(value: unknown, cast?: string): string {
    this.params.push(value);
    return cast ? `$${this.params.length}::${cast}` : `$${this.params.length}`;
  }

  alias(): string {
    return `t${this.#aliases++}`;
  }
}

export function col(alias: string, field: FieldOverview | string): string {
  return `${alias}.${ident(typeof field === 'string' ? field : field.field)}`;
}

export function table(name: string): string {
  return ident(name);
}

/** The type a bound value is cast to when compared with the column. */
export function castOf(field: FieldOverview): string {
  switch (field.dbType) {
    case 'json': case 'jsonb': return 'jsonb';
    case 'varchar': case 'bpchar': case 'char': case 'name': case 'citext': return 'text';
    case null: return 'text';
    default: return field.dbType;
  }
}

/** LIKE pattern with the user's text taken literally. */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
