/** GraphQL names: collections and fields whose names are not valid GraphQL names (`^[_A-Za-z][_0-9A-Za-z]*$`,
 * not starting with `__`) are left out of the generated schemas. */
import { FUNCTION_TYPE_NAMES } from './functions.ts';
import { SCALAR_ALIAS_NAMES } from './scalar-aliases.ts';

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

export function isGraphqlName(name: string): boolean {
  return NAME.test(name) && !name.startsWith('__');
}

/** Type names a collection may not take: the built-in scalars, the root types and the shared types. */
export const RESERVED_TYPE_NAMES: ReadonlySet<string> = new Set([
  'String', 'Int', 'Float', 'Boolean', 'ID', 'JSON', 'StringOrFloat', 'Query', 'Mutation', 'Subscription',
  'delete_one', 'delete_many', 'string_filter_operators', 'number_filter_operators', 'date_filter_operators',
  'boolean_filter_operators', 'id_filter_operators', ...FUNCTION_TYPE_NAMES, ...SCALAR_ALIAS_NAMES,
]);

/** Every type name a collection's part of the schema uses. */
export function typeNamesOf(collection: string): string[] {
  return [
    collection, `${collection}_filter`, `${collection}_quantifier_filter`, `${collection}_aggregated`,
    `${collection}_aggregated_count`, `${collection}_aggregated_fields`, `create_${collection}_input`, `update_${collection}_input`,
  ];
}
