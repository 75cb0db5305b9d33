/** Rendering units: Handlebars compiled once per (kind, id, text) and kept in a bounded LRU; subjects unescaped;
 * a template that does not compile is a 400; variables checked with ajv naming the variable. */
import { describe, expect, it } from 'vitest';
import { compiledCount, renderMessage } from '../../core/notify/render/engine.ts';
import { Lru } from '../../core/notify/render/lru.ts';
import { validateVariables } from '../../core/notify/render/variables.ts';
import { htmlToText } from '../../core/notify/channels/text.ts';

describe('renderMessage', () => {
  it('compiles a source once and again only when its text changes', () => {
    const base = compiledCount();
    const parts = (text: string) => ({ subject: { kind: 'subject' as const, id: 'u1', text: 'S {{a}}' }, content: { kind: 'content' as const, id: 'u1', text }, layout: null });
    expect(renderMessage(parts('<p>{{a}}</p>'), { a: '<x>' })).toEqual({ subject: 'S <x>', content: '<p>&lt;x&gt;</p>' });
    renderMessage(parts('<p>{{a}}</p>'), { a: 'again' });
    expect(compiledCount()).toBe(base + 2);
    expect(renderMessage(parts('<div>{{{a}}}</div>'), { a: '<x>' }).content).toBe('<div><x></div>');
    expect(compiledCount()).toBe(base + 3);
  });

  it('refuses a template that does not compile with a 400, and keeps prototype access closed', () => {
    expect(() => renderMessage({ subject: null, content: { kind: 'content', id: 'bad', text: '{{#if x}}open' }, layout: null }, {})).toThrow(/does not compile/);
    const out = renderMessage({ subject: null, content: { kind: 'content', id: 'proto', text: '[{{constructor.name}}][{{__proto__}}]' }, layout: null }, {});
    expect(out.content).toBe('[][]');
  });
});

describe('Lru', () => {
  it('keeps at most max entries, dropping the least recently used', () => {
    const lru = new Lru<number>(2);
    lru.set('a', 1); lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.size).toBe(2);
  });
});

describe('validateVariables', () => {
  it('names the failing variable', () => {
    const schema = { type: 'object', required: ['user'], properties: { user: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } };
    expect(() => validateVariables('t', schema, {})).toThrow('Invalid variables: "user" must have required property \'user\'.');
    expect(() => validateVariables('t', schema, { user: {} })).toThrow(/"user\.name"/);
    expect(() => validateVariables('t', schema, { user: { name: 'x' } })).not.toThrow();
    expect(() => validateVariables('t', null, { anything: 1 })).not.toThrow();
    expect(() => validateVariables('t2', { type: 'nonsense' }, {})).toThrow(/not a valid JSON schema/);
  });
});

describe('htmlToText', () => {
  it('keeps links and decodes entities', () => {
    expect(htmlToText('<p>Hi &amp; bye</p><p><a href="https://x.test/?a=1&amp;b=2">https://x.test/?a=1&amp;b=2</a></p>')).toBe('Hi & bye\n\nhttps://x.test/?a=1&b=2');
  });
});
