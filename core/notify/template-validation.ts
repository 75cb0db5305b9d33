/** POST /notify/validate-template (SPEC.md > Notification module, Template syntax): parses a Handlebars template
 * without rendering it and lists what is wrong, each with a 1-based line (and column where Handlebars knows it):
 * - syntax errors (unbalanced or mismatched blocks, unclosed mustaches): parsing stops at the first one;
 * - calls of helpers that are not registered: every one is listed. A call is a block (`{{#name arg}}`), a
 *   mustache with arguments (`{{name arg}}`, `{{name key=value}}`) or a sub-expression (`(name arg)`). A plain
 *   `{{name}}` is a variable, and a block without arguments (`{{#name}}...{{/name}}`) is a Mustache-style section
 *   over the value `name`; neither is a helper call.
 * - partials and decorators (`{{> name}}`, `{{* name}}`): none are registered, so each is an error.
 * Known helpers are Handlebars' built-ins unless the caller passes its own list (e.g. the renderer's). */
import Handlebars from 'handlebars';

export const BUILTIN_HELPERS: readonly string[] = ['if', 'unless', 'each', 'with', 'lookup', 'log', 'blockHelperMissing', 'helperMissing'];

export interface TemplateError {
  line: number;
  column?: number;
  message: string;
}

export interface TemplateValidation {
  valid: boolean;
  errors: TemplateError[];
}

type Node = hbs.AST.Node;

function at(node: Node): { line: number; column: number } {
  return { line: node.loc?.start.line ?? 1, column: (node.loc?.start.column ?? 0) + 1 };
}

/** The line of the first `{{#name` (or `{{^name`) that has no matching close, for a clearer "unclosed" message. */
function unclosedBlock(text: string): { name: string; line: number } | null {
  const stack: { name: string; line: number }[] = [];
  const tag = /\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}|\{\{~?([#^/])\s*(?:[>*]\s*)?([^\s}~()]+)/g;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    if (!m[1]) continue; // a comment
    const line = text.slice(0, m.index).split('\n').length;
    if (m[1] === '/') {
      const i = stack.map((s) => s.name).lastIndexOf(m[2]);
      if (i >= 0) stack.splice(i);
    } else {
      stack.push({ name: m[2], line });
    }
  }
  return stack[stack.length - 1] ?? null;
}

/** Deeper nesting is refused before Handlebars parses it: its parser takes time quadratic in the depth (and
 * recursion), so a 1 MB body of nested blocks would hold the process for minutes. */
export const MAX_NESTING = 100;

/** The first place where blocks (`{{#`, `{{^name`) or sub-expressions nest deeper than MAX_NESTING, if any. Every
 * path that compiles stored template text checks it first. */
export function tooDeep(text: string): TemplateError | null {
  const tag = /\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}|\{\{~?([#^/]?)([^}]*)\}\}/g;
  let depth = 0;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    if (m[2] === undefined) continue; // a comment
    const kind = m[1];
    if (kind === '#' || (kind === '^' && m[2].trim() !== '')) depth++;
    else if (kind === '/') depth = Math.max(0, depth - 1);
    let parens = 0;
    let maxParens = 0;
    for (const ch of m[2]) {
      if (ch === '(') maxParens = Math.max(maxParens, ++parens);
      else if (ch === ')') parens--;
    }
    if (depth > MAX_NESTING || maxParens > MAX_NESTING) {
      return { line: text.slice(0, m.index).split('\n').length, message: `Blocks or sub-expressions nest deeper than ${MAX_NESTING} levels.` };
    }
  }
  return null;
}

function syntaxError(text: string, err: unknown): TemplateError {
  if (err instanceof RangeError) return { line: 1, message: 'Template nesting is too deep.' };
  const e = err as { message?: unknown; lineNumber?: unknown; column?: unknown };
  const raw = String(e.message ?? err);
  if (typeof e.lineNumber === 'number') {
    // Handlebars' own checks, e.g. "if doesn't match each - 3:3".
    const message = raw.replace(/\s+-\s+\d+:\d+$/, '');
    const mismatch = /^(\S+) doesn't match (\S+)$/.exec(message);
    return {
      line: e.lineNumber,
      ...(typeof e.column === 'number' ? { column: e.column + 1 } : {}),
      message: mismatch ? `Block "${mismatch[1]}" is closed by "{{/${mismatch[2]}}}".` : message,
    };
  }
  const line = Number(/^Parse error on line (\d+)/.exec(raw)?.[1] ?? 1);
  const expecting = /\n(Expecting [^\n]*)$/.exec(raw)?.[1];
  if (/got 'EOF'$/.test(raw)) {
    const open = unclosedBlock(text);
    if (open) return { line: open.line, message: `Block "${open.name}" is not closed (missing {{/${open.name}}}).` };
    return { line, message: `Unexpected end of template. ${expecting ?? ''}`.trim() };
  }
  return { line, message: `Syntax error. ${expecting ?? raw.split('\n')[0]}`.trim() };
}

function calledName(path: hbs.AST.PathExpression | hbs.AST.Literal): string | null {
  return path.type === 'PathExpression' ? (path as hbs.AST.PathExpression).original : null;
}

/** Every helper call, partial and decorator of the tree, walked without recursion (deep templates stay safe). */
function unknownCalls(program: hbs.AST.Program, known: ReadonlySet<string>): TemplateError[] {
  const errors: TemplateError[] = [];
  const stack: Node[] = [program];
  const helper = (node: Node, name: string | null): void => {
    if (name !== null && !known.has(name)) errors.push({ ...at(node), message: `Unknown helper "${name}".` });
  };
  const pushArgs = (node: { params: hbs.AST.Expression[]; hash?: hbs.AST.Hash }): void => {
    stack.push(...(node.params as Node[]));
    if (node.hash) stack.push(...(node.hash.pairs.map((p) => p.value) as Node[]));
  };
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.type) {
      case 'Program':
        stack.push(...((node as hbs.AST.Program).body as Node[]));
        break;
      case 'MustacheStatement': {
        const m = node as hbs.AST.MustacheStatement;
        if (m.params.length > 0 || (m.hash && m.hash.pairs.length > 0)) helper(node, calledName(m.path));
        else if (m.path.type === 'SubExpression') stack.push(m.path as Node);
        pushArgs(m);
        break;
      }
      case 'SubExpression': {
        const s = node as hbs.AST.SubExpression;
        helper(node, calledName(s.path as hbs.AST.PathExpression));
        pushArgs(s);
        break;
      }
      case 'BlockStatement': {
        const b = node as hbs.AST.BlockStatement;
        if (b.params.length > 0 || (b.hash && b.hash.pairs.length > 0)) helper(node, calledName(b.path));
        pushArgs(b);
        if (b.program) stack.push(b.program as Node);
        if (b.inverse) stack.push(b.inverse as Node);
        break;
      }
      case 'PartialStatement':
      case 'PartialBlockStatement': {
        const p = node as hbs.AST.PartialStatement;
        const name = p.name.type === 'PathExpression' ? (p.name as hbs.AST.PathExpression).original : 'dynamic';
        errors.push({ ...at(node), message: `Partials are not supported ("${name}").` });
        break;
      }
      case 'Decorator':
      case 'DecoratorBlock':
        errors.push({ ...at(node), message: 'Decorators are not supported.' });
        break;
      default:
        break;
    }
  }
  return errors.sort((a, b) => a.line - b.line || (a.column ?? 0) - (b.column ?? 0));
}

export function validateTemplate(text: string, helpers: readonly string[] = BUILTIN_HELPERS): TemplateValidation {
  const deep = tooDeep(text);
  if (deep) return { valid: false, errors: [deep] };
  let program: hbs.AST.Program;
  try {
    program = Handlebars.parse(text) as unknown as hbs.AST.Program;
  } catch (err) {
    return { valid: false, errors: [syntaxError(text, err)] };
  }
  const errors = unknownCalls(program, new Set(helpers));
  return { valid: errors.length === 0, errors };
}
