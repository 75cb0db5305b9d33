/** `create_{c}_input` and `update_{c}_input`: the fields the role may write. Relations nest as in REST: M2O
 * takes the related input (an object with an existing key links it), or the plain key when the related
 * collection has no such input for the caller; O2M takes a list of related inputs. All fields are optional:
 * the write service validates required values (INVALID_PAYLOAD). */
import { GraphQLInputObjectType, GraphQLList, type GraphQLInputFieldConfigMap, type GraphQLInputType } from 'graphql/index.js';
import type { FieldKind } from './field-kinds.ts';
import { scalarOf } from './field-kinds.ts';

export class InputTypes {
  readonly #types = new Map<string, GraphQLInputObjectType>();

  constructor(private readonly kindsOf: (collection: string, action: 'create' | 'update') => FieldKind[] | null) {}

  /** The input type, or null when the caller may not do `action` on `collection` (or may write no field). */
  input(collection: string, action: 'create' | 'update'): GraphQLInputObjectType | null {
    const name = `${action}_${collection}_input`;
    const existing = this.#types.get(name);
    if (existing) return existing;
    const kinds = this.kindsOf(collection, action);
    if (!kinds || kinds.length === 0) return null;
    const type = new GraphQLInputObjectType({ name, fields: () => this.#fields(kinds, action) });
    this.#types.set(name, type);
    return type;
  }

  #fields(kinds: FieldKind[], action: 'create' | 'update'): GraphQLInputFieldConfigMap {
    const fields: GraphQLInputFieldConfigMap = {};
    for (const k of kinds) {
      if (k.kind === 'column') fields[k.field.field] = { type: scalarOf(k.field) as GraphQLInputType };
      else if (k.kind === 'm2o') fields[k.field.field] = { type: this.input(k.related, action) ?? (scalarOf(k.field) as GraphQLInputType) };
      else {
        const related = this.input(k.related, action);
        if (related) fields[k.field.field] = { type: new GraphQLList(related) };
      }
    }
    return fields;
  }
}
