/** The filter builder's model: a tree of groups (`_and` / `_or`) and conditions (a field path, an operator and its
 * value), converted to and from the API's filter object (SPEC.md > Query: `{field: {_op: value}}`, relational paths
 * as nested objects, `_and`/`_or` arrays). The operator list and what each takes mirror core/query/operators.ts:
 * nothing (a flag), one value, a list, or two (between). */

export type Logic = '_and' | '_or';
export type Operand = 'none' | 'one' | 'list' | 'two';

export interface RuleNode {
  kind: 'rule';
  id: string;
  /** A field of the collection, or a path through many-to-one relations ("author.name"). */
  path: string;
  op: string;
  /** 'one': a string; 'list': string[]; 'two': [string, string]; 'none': true. */
  value: unknown;
}

export interface GroupNode {
  kind: 'group';
  id: string;
  logic: Logic;
  children: FilterNode[];
}

export type FilterNode = RuleNode | GroupNode;

export interface OperatorInfo {
  op: string;
  label: string;
  operand: Operand;
}

/** Every operator the API accepts (core/query/operators.ts), worded for people. */
export const OPERATORS: readonly OperatorInfo[] = [
  { op: '_eq', label: 'equals', operand: 'one' },
  { op: '_neq', label: 'does not equal', operand: 'one' },
  { op: '_lt', label: 'is less than', operand: 'one' },
  { op: '_lte', label: 'is less than or equal to', operand: 'one' },
  { op: '_gt', label: 'is greater than', operand: 'one' },
  { op: '_gte', label: 'is greater than or equal to', operand: 'one' },
  { op: '_between', label: 'is between', operand: 'two' },
  { op: '_nbetween', label: 'is not between', operand: 'two' },
  { op: '_in', label: 'is one of', operand: 'list' },
  { op: '_nin', label: 'is none of', operand: 'list' },
  { op: '_contains', label: 'contains', operand: 'one' },
  { op: '_ncontains', label: 'does not contain', operand: 'one' },
  { op: '_icontains', label: 'contains (any case)', operand: 'one' },
  { op: '_nicontains', label: 'does not contain (any case)', operand: 'one' },
  { op: '_starts_with', label: 'starts with', operand: 'one' },
  { op: '_nstarts_with', label: 'does not start with', operand: 'one' },
  { op: '_istarts_with', label: 'starts with (any case)', operand: 'one' },
  { op: '_nistarts_with', label: 'does not start with (any case)', operand: 'one' },
  { op: '_ends_with', label: 'ends with', operand: 'one' },
  { op: '_nends_with', label: 'does not end with', operand: 'one' },
  { op: '_iends_with', label: 'ends with (any case)', operand: 'one' },
  { op: '_niends_with', label: 'does not end with (any case)', operand: 'one' },
  { op: '_regex', label: 'matches the pattern', operand: 'one' },
  { op: '_null', label: 'is null', operand: 'none' },
  { op: '_nnull', label: 'is not null', operand: 'none' },
  { op: '_empty', label: 'is empty', operand: 'none' },
  { op: '_nempty', label: 'is not empty', operand: 'none' },
];

const BY_OP = new Map(OPERATORS.map((o) => [o.op, o]));

export function operatorInfo(op: string): OperatorInfo {
  return BY_OP.get(op) ?? { op, label: op, operand: 'one' };
}

const TEXT_TYPES = new Set(['string', 'text', 'csv', 'hash']);
const NUMBER_TYPES = new Set(['integer', 'bigInteger', 'float', 'decimal']);
const DATE_TYPES = new Set(['date', 'time', 'dateTime', 'timestamp']);

const EQUALITY = ['_eq', '_neq', '_in', '_nin', '_null', '_nnull'];
const ORDERED = ['_lt', '_lte', '_gt', '_gte', '_between', '_nbetween'];
const TEXTUAL = ['_contains', '_ncontains', '_icontains', '_nicontains', '_starts_with', '_nstarts_with', '_istarts_with',
  '_nistarts_with', '_ends_with', '_nends_with', '_iends_with', '_niends_with', '_regex'];
const EMPTINESS = ['_empty', '_nempty'];

/** The operators that make sense for a field type, in the order of OPERATORS. Text fields get all of them. */
export function operatorsFor(type: string): OperatorInfo[] {
  let ops: string[];
  if (TEXT_TYPES.has(type)) ops = [...EQUALITY, ...ORDERED, ...TEXTUAL, ...EMPTINESS];
  else if (NUMBER_TYPES.has(type) || DATE_TYPES.has(type)) ops = [...EQUALITY, ...ORDERED];
  else if (type === 'boolean') ops = ['_eq', '_neq', '_null', '_nnull'];
  else if (type === 'uuid') ops = [...EQUALITY, ...EMPTINESS];
  else if (type === 'json') ops = ['_null', '_nnull', '_empty', '_nempty', '_contains', '_ncontains', '_icontains', '_nicontains'];
  else ops = [...EQUALITY, ...EMPTINESS];
  const wanted = new Set(ops);
  return OPERATORS.filter((o) => wanted.has(o.op));
}

let seq = 0;
export function nodeId(): string {
  seq += 1;
  return `n${seq}`;
}

export function emptyGroup(logic: Logic = '_and'): GroupNode {
  return { kind: 'group', id: nodeId(), logic, children: [] };
}

/** The value a new operator starts with, keeping what can be kept from the old one. */
export function valueFor(op: string, previous: unknown): unknown {
  const operand = operatorInfo(op).operand;
  const first = Array.isArray(previous) ? String(previous[0] ?? '') : typeof previous === 'string' ? previous : '';
  switch (operand) {
    case 'none': return true;
    case 'one': return first;
    case 'list': return first ? [first] : [];
    case 'two': return [first, Array.isArray(previous) ? String(previous[1] ?? '') : ''];
  }
}

export function newRule(path: string, type: string): RuleNode {
  const op = operatorsFor(type)[0]?.op ?? '_eq';
  return { kind: 'rule', id: nodeId(), path, op, value: valueFor(op, '') };
}

/** Whether a condition has what its operator needs (incomplete ones are left out of the query). */
export function isComplete(rule: RuleNode): boolean {
  if (!rule.path) return false;
  const v = rule.value;
  switch (operatorInfo(rule.op).operand) {
    case 'none': return true;
    case 'one': return typeof v === 'string' ? v !== '' : v !== undefined && v !== null;
    case 'list': return Array.isArray(v) && v.some((x) => String(x) !== '');
    case 'two': return Array.isArray(v) && v.length === 2 && String(v[0]) !== '' && String(v[1]) !== '';
  }
}

function wire(rule: RuleNode, fieldType: (path: string) => string | undefined): unknown {
  const operand = operatorInfo(rule.op).operand;
  if (operand === 'none') return true;
  const type = fieldType(rule.path);
  const one = (x: unknown): unknown => (type === 'boolean' && (x === 'true' || x === 'false') ? x === 'true' : x);
  if (operand === 'list') return (rule.value as unknown[]).map((x) => one(String(x).trim())).filter((x) => x !== '');
  if (operand === 'two') return (rule.value as unknown[]).map((x) => one(x));
  return one(rule.value);
}

/** The API's filter object for the tree (incomplete conditions and empty groups left out), or null for none. */
export function toApiFilter(root: GroupNode, fieldType: (path: string) => string | undefined = () => undefined): Record<string, unknown> | null {
  const build = (node: FilterNode): Record<string, unknown> | null => {
    if (node.kind === 'rule') {
      if (!isComplete(node)) return null;
      let out: Record<string, unknown> = { [node.op]: wire(node, fieldType) };
      for (const part of node.path.split('.').reverse()) out = { [part]: out };
      return out;
    }
    const parts = node.children.map(build).filter((x): x is Record<string, unknown> => x !== null);
    if (parts.length === 0) return null;
    return { [node.logic]: parts };
  };
  return build(root);
}

/** The number of complete conditions in the tree (the count on the Filter button). */
export function countConditions(node: FilterNode): number {
  if (node.kind === 'rule') return isComplete(node) ? 1 : 0;
  return node.children.reduce((n, c) => n + countConditions(c), 0);
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readValue(op: string, raw: unknown): unknown {
  const operand = operatorInfo(op).operand;
  const text = (x: unknown): string => (x === null || x === undefined ? '' : typeof x === 'string' ? x : String(x));
  switch (operand) {
    case 'none': return true;
    case 'one': return text(raw);
    case 'list': return Array.isArray(raw) ? raw.map(text) : typeof raw === 'string' ? raw.split(',') : [text(raw)];
    case 'two': {
      const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
      return [text(list[0]), text(list[1])];
    }
  }
}

/** A saved filter object back into the tree; the root is always a group. Unknown shapes are dropped. */
export function fromApiFilter(filter: unknown): GroupNode {
  const nodesOf = (obj: unknown, prefix: string[]): FilterNode[] => {
    if (!isPlain(obj)) return [];
    const out: FilterNode[] = [];
    for (const [key, value] of Object.entries(obj)) {
      if (key === '_and' || key === '_or') {
        if (!Array.isArray(value)) continue;
        const children = value.flatMap((item) => {
          const nodes = nodesOf(item, prefix);
          return nodes.length > 1 ? [{ kind: 'group', id: nodeId(), logic: '_and', children: nodes } as GroupNode] : nodes;
        });
        out.push({ kind: 'group', id: nodeId(), logic: key, children });
      } else if (key.startsWith('_')) {
        if (prefix.length === 0 || !BY_OP.has(key)) continue;
        out.push({ kind: 'rule', id: nodeId(), path: prefix.join('.'), op: key, value: readValue(key, value) });
      } else {
        out.push(...nodesOf(value, [...prefix, key]));
      }
    }
    return out;
  };
  const nodes = nodesOf(filter, []);
  if (nodes.length === 1 && nodes[0].kind === 'group') return nodes[0];
  return { kind: 'group', id: nodeId(), logic: '_and', children: nodes };
}

/** A copy of the tree with the node of `id` replaced (or removed when `next` is null). */
export function replaceNode(root: GroupNode, id: string, next: FilterNode | null): GroupNode {
  const walk = (group: GroupNode): GroupNode => ({
    ...group,
    children: group.children.flatMap((child): FilterNode[] => {
      if (child.id === id) return next ? [next] : [];
      return [child.kind === 'group' ? walk(child) : child];
    }),
  });
  if (root.id === id) return next && next.kind === 'group' ? next : root;
  return walk(root);
}

/** The dynamic values the API resolves at query time (core/query/filter-values.ts). */
export const DYNAMIC_VALUES: readonly { value: string; label: string; types: 'user' | 'date' }[] = [
  { value: '$CURRENT_USER', label: 'Current user', types: 'user' },
  { value: '$NOW', label: 'Now', types: 'date' },
  { value: '$NOW(-1 day)', label: 'One day ago', types: 'date' },
  { value: '$NOW(-7 days)', label: 'A week ago', types: 'date' },
  { value: '$NOW(-1 month)', label: 'A month ago', types: 'date' },
  { value: '$NOW(+1 day)', label: 'In one day', types: 'date' },
];

export function dynamicLabel(value: string): string | null {
  return DYNAMIC_VALUES.find((d) => d.value === value)?.label ?? (value.startsWith('$NOW') ? value : null);
}
