/** Directus' scalar names, for clients written against Directus' schema: their operations declare variables as
 * `GraphQLStringOrFloat`, `GraphQLBigInt`, `Date`, `Hash`, `JSON`, `GraphQLGeoJSON` or `Void` (the scalars of
 * Directus' api/src/services/graphql/types plus graphql-compose's JSON). Every generated schema holds these
 * types, and a variable of one of them may stand where this service's own scalar of the same values stands
 * (`GraphQLStringOrFloat` for `StringOrFloat`, `Date` for `String`...). GraphQL's own rule admits only the
 * identical named type there, so the validation rule "variables in allowed position" is replaced by one that
 * also knows these aliases. Values are parsed by the alias' own scalar, then checked by the query and write
 * services as REST values are. */
import {
  GraphQLError, GraphQLScalarType, GraphQLString, isInputObjectType, isListType, isNonNullType, isNullableType,
  isScalarType, Kind, typeFromAST, VariablesInAllowedPositionRule,
  type GraphQLInputType, type GraphQLSchema, type GraphQLType, type ValidationRule, type ValueNode, type VariableDefinitionNode,
} from 'graphql/index.js';
import { GraphQLJSON, GraphQLStringOrFloat } from './scalars.ts';

function numberOrString(name: string, value: unknown): string | number {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new GraphQLError(`${name} cannot represent ${JSON.stringify(value) ?? String(value)}.`);
}

const DirectusStringOrFloat = new GraphQLScalarType({
  name: 'GraphQLStringOrFloat',
  description: 'A Float or a String (Directus\' name for StringOrFloat).',
  serialize: (value) => numberOrString('GraphQLStringOrFloat', value),
  parseValue: (value) => numberOrString('GraphQLStringOrFloat', value),
  parseLiteral: (node) => GraphQLStringOrFloat.parseLiteral(node),
});

const INTEGER = /^[+-]?\d+$/;

/** An integer as a string of digits (kept as sent: a bigint column may hold more than 2^53) or a safe integer. */
function bigInt(value: unknown): string | number {
  if (typeof value === 'string' && INTEGER.test(value.trim())) return value.trim();
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  throw new GraphQLError(`GraphQLBigInt cannot represent ${JSON.stringify(value) ?? String(value)}: expected an integer.`);
}

const DirectusBigInt = new GraphQLScalarType({
  name: 'GraphQLBigInt',
  description: 'A big integer, as a string of digits or a safe integer.',
  serialize: bigInt,
  parseValue: bigInt,
  parseLiteral(node: ValueNode) {
    if (node.kind === Kind.STRING) return bigInt(node.value);
    if (node.kind === Kind.INT) return Number.isSafeInteger(Number(node.value)) ? Number(node.value) : node.value;
    throw new GraphQLError('GraphQLBigInt must be an integer or a string holding one.');
  },
});

/** A scalar that parses as String does, under another name. */
function stringNamed(name: string, description: string): GraphQLScalarType {
  return new GraphQLScalarType({ ...GraphQLString.toConfig(), name, description });
}

const DirectusGeoJSON = new GraphQLScalarType({ ...GraphQLJSON.toConfig(), name: 'GraphQLGeoJSON', description: 'A GeoJSON value.' });

const DirectusVoid = new GraphQLScalarType({
  name: 'Void',
  description: 'Represents NULL values.',
  serialize: () => null,
  parseValue: () => null,
  parseLiteral: () => null,
});

/** The types every generated schema holds besides its own, so that operations may name them. */
export const SCALAR_ALIASES: readonly GraphQLScalarType[] = [
  GraphQLJSON, DirectusStringOrFloat, DirectusBigInt, stringNamed('Date', 'ISO8601 Date values.'),
  stringNamed('Hash', 'Hashed string values.'), DirectusGeoJSON, DirectusVoid,
];

export const SCALAR_ALIAS_NAMES: readonly string[] = SCALAR_ALIASES.map((t) => t.name);

/** Declared scalar -> the scalars of this schema whose positions it may fill. `*`: any scalar but ID (JSON
 * values reach the services, which check filter and payload values as they check REST's; keys stay typed). */
const STANDS_FOR: Readonly<Record<string, ReadonlySet<string> | '*'>> = {
  GraphQLStringOrFloat: new Set(['StringOrFloat', 'String', 'Float']),
  GraphQLBigInt: new Set(['StringOrFloat', 'String']),
  Date: new Set(['String']),
  Hash: new Set(['String']),
  JSON: '*',
  GraphQLGeoJSON: '*',
  Void: '*',
};

function scalarFits(declared: string, position: string): boolean {
  if (declared === position) return true;
  const targets = Object.hasOwn(STANDS_FOR, declared) ? STANDS_FOR[declared] : undefined;
  if (targets === '*') return position !== 'ID';
  return targets?.has(position) ?? false;
}

/** GraphQL's isTypeSubTypeOf for input types, with scalar aliases at the leaves. */
function fits(declared: GraphQLType, position: GraphQLType): boolean {
  if (declared === position) return true;
  if (isNonNullType(position)) return isNonNullType(declared) && fits(declared.ofType, position.ofType);
  if (isNonNullType(declared)) return fits(declared.ofType, position);
  if (isListType(position)) return isListType(declared) && fits(declared.ofType, position.ofType);
  if (isListType(declared)) return false;
  return isScalarType(declared) && isScalarType(position) && scalarFits(declared.name, position.name);
}

/** As GraphQL's allowedVariableUsage: a nullable variable may fill a non-null position only with a default. */
function allowed(declared: GraphQLInputType, declaredDefault: ValueNode | undefined, position: GraphQLInputType, positionDefault: unknown): boolean {
  if (isNonNullType(position) && !isNonNullType(declared)) {
    const hasDefault = (declaredDefault !== undefined && declaredDefault.kind !== Kind.NULL) || positionDefault !== undefined;
    return hasDefault && fits(declared, position.ofType);
  }
  return fits(declared, position);
}

/** GraphQL's VariablesInAllowedPositionRule, with the scalar aliases. */
export const VariablesInAllowedPositionWithAliasesRule: ValidationRule = (context) => {
  let defs: Record<string, VariableDefinitionNode> = Object.create(null) as Record<string, VariableDefinitionNode>;
  return {
    OperationDefinition: {
      enter() {
        defs = Object.create(null) as Record<string, VariableDefinitionNode>;
      },
      leave(operation) {
        const schema: GraphQLSchema = context.getSchema();
        for (const { node, type, defaultValue, parentType } of context.getRecursiveVariableUsages(operation)) {
          const name = node.name.value;
          const def = defs[name];
          if (!def || !type) continue;
          const declared = typeFromAST(schema, def.type) as GraphQLInputType | undefined;
          if (!declared) continue;
          if (!allowed(declared, def.defaultValue, type, defaultValue)) {
            context.reportError(new GraphQLError(
              `Variable "$${name}" of type "${String(declared)}" used in position expecting type "${String(type)}".`,
              { nodes: [def, node] },
            ));
          }
          if (isInputObjectType(parentType) && parentType.isOneOf && isNullableType(declared)) {
            context.reportError(new GraphQLError(
              `Variable "$${name}" is of type "${String(declared)}" but must be non-nullable to be used for OneOf Input Object "${String(parentType)}".`,
              { nodes: [def, node] },
            ));
          }
        }
      },
    },
    VariableDefinition(node) {
      defs[node.variable.name.value] = node;
    },
  };
};

/** The validation rules with GraphQL's variable-position rule replaced by the alias-aware one. */
export function withScalarAliases(rules: readonly ValidationRule[]): ValidationRule[] {
  return rules.map((rule) => (rule === VariablesInAllowedPositionRule ? VariablesInAllowedPositionWithAliasesRule : rule));
}
