/** Scalars beyond the built-in ones: JSON (any JSON value, as REST sends it) and StringOrFloat (filter
 * values of numeric fields, so big integers and decimals keep their precision as strings). */
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql/index.js';

function literal(node: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.STRING: case Kind.BOOLEAN: return node.value;
    case Kind.INT: case Kind.FLOAT: return Number(node.value);
    case Kind.NULL: return null;
    case Kind.ENUM: return node.value;
    case Kind.LIST: return node.values.map((v) => literal(v, variables));
    case Kind.OBJECT: return Object.fromEntries(node.fields.map((f) => [f.name.value, literal(f.value, variables)]));
    case Kind.VARIABLE: return variables ? variables[node.name.value] : undefined;
  }
}

export const GraphQLJSON = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => literal(node, variables),
});

function stringOrFloat(value: unknown): string | number {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new GraphQLError(`StringOrFloat cannot represent ${JSON.stringify(value)}.`);
}

export const GraphQLStringOrFloat = new GraphQLScalarType({
  name: 'StringOrFloat',
  description: 'A number, or a string holding one (big integers and decimals).',
  serialize: stringOrFloat,
  parseValue: stringOrFloat,
  parseLiteral(node) {
    if (node.kind === Kind.STRING) return node.value;
    if (node.kind === Kind.INT || node.kind === Kind.FLOAT) return Number(node.value);
    throw new GraphQLError('StringOrFloat must be a string or a number.');
  },
});
