/** Filter input types: `{c}_filter` with `_and`/`_or`, one operator input per field family holding exactly
 * the operators the registry (core/query/operators.ts) gives that family, M2O fields taking the related
 * `{c}_filter` and O2M fields the related `{c}_quantifier_filter` (its fields plus `_some`/`_none`, as the
 * planner supports them). JSON and hash fields cannot be filtered here; concealed fields only by admins (as REST). */
import {
  GraphQLBoolean, GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLString,
  type GraphQLInputFieldConfigMap, type GraphQLInputType,
} from 'graphql/index.js';
import { operatorSpec, operatorsWhere, type GraphQLFamily, type OperandKind } from '../query/operators.ts';
import type { FieldOverview } from '../schema/types.ts';
import type { FieldKind } from './field-kinds.ts';
import { funcName, functionFilterField } from './functions.ts';
import { GraphQLStringOrFloat } from './scalars.ts';

/** One operator input: the registry's operators of a family (operators.ts), each typed by its operand kind. */
function operators(name: string, family: GraphQLFamily, value: GraphQLInputType): GraphQLInputObjectType {
  const list = new GraphQLList(value);
  const typeOf: Record<OperandKind, GraphQLInputType> = { scalar: value, list, pair: list, flag: GraphQLBoolean, text: GraphQLString };
  const fields: GraphQLInputFieldConfigMap = {};
  for (const op of operatorsWhere((spec) => spec.graphql.includes(family))) fields[op] = { type: typeOf[operatorSpec(op).operand] };
  return new GraphQLInputObjectType({ name, fields });
}

export const STRING_OPERATORS = operators('string_filter_operators', 'string', GraphQLString);
export const NUMBER_OPERATORS = operators('number_filter_operators', 'number', GraphQLStringOrFloat);
export const DATE_OPERATORS = operators('date_filter_operators', 'date', GraphQLString);
export const BOOLEAN_OPERATORS = operators('boolean_filter_operators', 'boolean', GraphQLBoolean);
export const ID_OPERATORS = operators('id_filter_operators', 'id', GraphQLID);

export function operatorsOf(field: FieldOverview, admin: boolean): GraphQLInputObjectType | null {
  if (field.special.includes('conceal') && !admin) return null;
  switch (field.type) {
    case 'integer': case 'bigInteger': case 'float': case 'decimal': return NUMBER_OPERATORS;
    case 'boolean': return BOOLEAN_OPERATORS;
    case 'date': case 'time': case 'dateTime': case 'timestamp': return DATE_OPERATORS;
    case 'uuid': return ID_OPERATORS;
    case 'string': case 'text': case 'csv': return STRING_OPERATORS;
    default: return null;
  }
}

export class FilterTypes {
  readonly #plain = new Map<string, GraphQLInputObjectType>();
  readonly #quantified = new Map<string, GraphQLInputObjectType>();

  constructor(private readonly kindsOf: (collection: string) => FieldKind[], private readonly admin: boolean) {}

  #fields(c: string): GraphQLInputFieldConfigMap {
    const fields: GraphQLInputFieldConfigMap = {};
    for (const k of this.kindsOf(c)) {
      if (k.kind === 'm2o') fields[k.field.field] = { type: this.filter(k.related) };
      else if (k.kind === 'o2m') fields[k.field.field] = { type: this.quantified(k.related) };
      else {
        const ops = operatorsOf(k.field, this.admin);
        if (ops) fields[k.field.field] = { type: ops };
      }
    }
    for (const k of this.kindsOf(c)) {
      if (k.kind === 'm2o' || (k.field.special.includes('conceal') && !this.admin)) continue;
      const name = funcName(k.field.field);
      const fn = functionFilterField(k.field, k.kind === 'o2m');
      if (fn && !Object.hasOwn(fields, name)) fields[name] = fn;
    }
    const self = new GraphQLList(new GraphQLNonNull(this.filter(c)));
    fields._and = { type: self };
    fields._or = { type: self };
    return fields;
  }

  filter(c: string): GraphQLInputObjectType {
    let t = this.#plain.get(c);
    if (!t) {
      t = new GraphQLInputObjectType({ name: `${c}_filter`, fields: () => this.#fields(c) });
      this.#plain.set(c, t);
    }
    return t;
  }

  /** The filter of an O2M field: the related collection's fields, or `_some`/`_none` alone. */
  quantified(c: string): GraphQLInputObjectType {
    let t = this.#quantified.get(c);
    if (!t) {
      t = new GraphQLInputObjectType({
        name: `${c}_quantifier_filter`,
        fields: () => ({ ...this.#fields(c), _some: { type: this.filter(c) }, _none: { type: this.filter(c) } }),
      });
      this.#quantified.set(c, t);
    }
    return t;
  }
}

