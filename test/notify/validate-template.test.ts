/** POST /notify/validate-template: Handlebars parsed without rendering; syntax errors with their line, unknown
 * helpers (beyond if, unless, each, with, lookup, log) each with line and column, partials refused, a non-string
 * template 400, anonymous 401. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateTemplate } from '../../core/notify/template-validation.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  await createPrincipal(t.services, { token: 'tpl-user', permissions: [] });
});
afterAll(async () => { await t?.close(); });

const check = (template: unknown, token?: string | null) => t.req('POST', '/notify/validate-template', { template }, token === undefined ? {} : { token });

describe('POST /notify/validate-template', () => {
  it('accepts a valid template (any authenticated user)', async () => {
    const template = 'Hello {{name}},\n{{#if vip}}<b>{{{banner}}}</b>{{else}}hi{{/if}}\n{{#each items as |item i|}}{{i}}: {{item.title}} {{lookup ../labels i}}{{/each}}\n{{#with user}}{{email}}{{/with}}{{#unless x}}-{{/unless}}{{!-- note --}}{{#section}}mustache section{{/section}}';
    const res = await check(template, 'tpl-user');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { valid: true, errors: [] } });
    expect((await check('')).body.data.valid).toBe(true);
  });

  it('reports an unclosed block with the line it opens on', async () => {
    const res = await check('Hello\n\n{{#if vip}}\nwelcome\n');
    expect(res.status).toBe(200);
    expect(res.body.data.valid).toBe(false);
    expect(res.body.data.errors).toHaveLength(1);
    expect(res.body.data.errors[0].line).toBe(3);
    expect(res.body.data.errors[0].message).toMatch(/"if" is not closed/);
  });

  it('reports a mismatched close with its line and column', async () => {
    const res = await check('a\n{{#each list}}\n  x {{/if}}');
    expect(res.body.data.valid).toBe(false);
    expect(res.body.data.errors[0]).toMatchObject({ line: 2 });
    expect(res.body.data.errors[0].message).toMatch(/each.*if/);
    expect(typeof res.body.data.errors[0].column).toBe('number');
  });

  it('reports a broken mustache with its line', async () => {
    const res = await check('line one\nline two {{{raw}}\n');
    expect(res.body.data.valid).toBe(false);
    expect(res.body.data.errors[0].line).toBe(2);
    expect(res.body.data.errors[0].message).toMatch(/Syntax error/);
  });

  it('lists every unknown helper with line and column', async () => {
    const res = await check('Hi {{name}}\n{{uppercase name}}\n  {{#repeat 3}}x{{/repeat}}\n{{#if (eq a b)}}y{{/if}}\n{{format date fmt="short"}}');
    expect(res.body.data.valid).toBe(false);
    expect(res.body.data.errors).toEqual([
      { line: 2, column: 1, message: 'Unknown helper "uppercase".' },
      { line: 3, column: 3, message: 'Unknown helper "repeat".' },
      { line: 4, column: 7, message: 'Unknown helper "eq".' },
      { line: 5, column: 1, message: 'Unknown helper "format".' },
    ]);
  });

  it('refuses partials and decorators (none are registered)', async () => {
    const res = await check('a\n{{> footer}}');
    expect(res.body.data).toEqual({ valid: false, errors: [{ line: 2, column: 1, message: 'Partials are not supported ("footer").' }] });
  });

  it('answers 400 for a missing or non-string template, 401 for anonymous callers', async () => {
    for (const body of [{}, { template: 3 }, { template: null }, { template: ['{{a}}'] }]) {
      const res = await t.req('POST', '/notify/validate-template', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    expect((await t.req('POST', '/notify/validate-template', '[1]')).status).toBe(400);
    expect((await check('{{a}}', null)).status).toBe(401);
  });

  it('refuses nesting deeper than 100 levels at once (Handlebars would parse it in quadratic time)', async () => {
    const deep = 'a\n' + '{{#if a}}'.repeat(20_000) + '{{/if}}'.repeat(20_000);
    const started = Date.now();
    const res = await check(deep);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ valid: false, errors: [{ line: 2, message: 'Blocks or sub-expressions nest deeper than 100 levels.' }] });
    expect(validateTemplate('{{#if a}}'.repeat(100) + '{{/if}}'.repeat(100)).valid).toBe(true);
    let sub = 'x';
    for (let i = 0; i < 101; i++) sub = `(lookup ${sub} "k")`;
    expect(validateTemplate(`{{lookup ${sub} "k"}}`).errors[0].message).toMatch(/deeper than 100/);
  });
});
