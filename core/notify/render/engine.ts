/** Template rendering (SPEC.md > Notification module > Template syntax): Handlebars, `{{var}}` HTML-escaped,
 * `{{{var}}}` raw, `#if`, `#each`; a layout wraps the rendered content through `{{{content}}}`. Subjects are plain
 * text (a mail header, not HTML): rendered without escaping. Each source is compiled once per (kind, id, hash of
 * its text) — the text hash is the version stamp, so an edited template or layout compiles anew — and kept in a
 * bounded LRU. Handlebars' own prototype-access guard stays on: variables cannot reach __proto__ or constructors. */
import { createHash } from 'node:crypto';
import Handlebars from 'handlebars';
import { InvalidPayloadError } from '../../errors.ts';
import { Lru } from './lru.ts';
import { tooDeep } from '../template-validation.ts';

type Compiled = (context: unknown) => string;

const hb = Handlebars.create();
const cache = new Lru<Compiled>(500);

export type SourceKind = 'content' | 'subject' | 'layout';

export interface Source {
  kind: SourceKind;
  /** The record the text belongs to (content id, layout id); '' for one-off text. */
  id: string | number;
  text: string;
  /** One-off text (a preview being typed): compiled for this render only, not kept in the cache, so the versions an
   * editor passes through do not push the templates that are sent out of it. */
  transient?: boolean;
}

function compiled(src: Source): Compiled {
  const stamp = createHash('sha1').update(src.text).digest('base64url');
  const key = `${src.kind}:${src.id}:${stamp}`;
  let fn = src.transient ? undefined : cache.get(key);
  if (!fn) {
    const deep = tooDeep(src.text);
    if (deep) throw new InvalidPayloadError(`The ${src.kind} template${src.id !== '' ? ` "${src.id}"` : ''} does not compile: ${deep.message}`);
    try {
      const template = hb.compile(src.text, { noEscape: src.kind === 'subject', strict: false });
      template({}); // compile errors surface on first use: find them now
      fn = template as Compiled;
    } catch (err) {
      throw new InvalidPayloadError(`The ${src.kind} template${src.id !== '' ? ` "${src.id}"` : ''} does not compile: ${(err as Error).message.split('\n')[0]}`);
    }
    if (!src.transient) cache.set(key, fn);
  }
  return fn;
}

function render(src: Source, vars: Record<string, unknown>): string {
  try {
    return compiled(src)(vars);
  } catch (err) {
    if (err instanceof InvalidPayloadError) throw err;
    throw new InvalidPayloadError(`The ${src.kind} template could not be rendered: ${(err as Error).message.split('\n')[0]}`);
  }
}

export interface Rendered { subject: string; content: string }

/** Renders subject and content, the content wrapped by the layout when there is one. */
export function renderMessage(parts: { subject: Source | null; content: Source; layout: Source | null }, vars: Record<string, unknown>): Rendered {
  const body = render(parts.content, vars);
  const content = parts.layout ? render(parts.layout, { ...vars, content: body }) : body;
  return { subject: parts.subject ? render(parts.subject, vars) : '', content };
}

/** How many compiled templates are cached (tests). */
export function compiledCount(): number { return cache.size; }
