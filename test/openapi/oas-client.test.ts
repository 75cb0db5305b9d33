/** The document is valid OpenAPI (a standard validator) and good enough to generate a typed client
 * (openapi-typescript), whose output type-checks with a small usage snippet (TypeScript's compiler API). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocument, HIDDEN_SYSTEM, OpenApiCache, systemEndpoints, type DocumentInput } from '../../core/openapi/document.ts';
import { servedBy } from '../../core/openapi/served.ts';
import { serviceRoutes } from '../../functions/routes/openapi.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
let doc: Record<string, unknown>;
const tmp = mkdtempSync(join(tmpdir(), 'oas-'));

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  const res = await t.req('GET', '/server/specs/oas');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await t?.close();
});

describe('validity', () => {
  it('is valid under @seriousme/openapi-schema-validator', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('the validator catches a broken document (the check can fail)', async () => {
    const broken = structuredClone(doc) as any;
    broken.paths['/items/posts'].get.responses = { 200: { content: {} } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});

describe('typed client', () => {
  it('openapi-typescript generates types that compile with a usage snippet', async () => {
    const source = astToString(await openapiTS(doc as any));
    expect(source).toContain('"/items/posts": {');
    expect(source).toContain('"/items/home": {');
    expect(source).toContain('ItemsPosts: {');
    expect(source).toContain('readItemsPosts: {');
    // A .ts file (not .d.ts), so skipLibCheck does not skip checking the generated types themselves.
    writeFileSync(join(tmp, 'api.ts'), source);
    writeFileSync(join(tmp, 'usage.ts'), `
import type { components, paths, operations } from './api';
type Post = components['schemas']['ItemsPosts'];
type Author = components['schemas']['ItemsAuthors'];
const post: Post = { title: 'Hello', views: 1, big: '9007199254740993', labels: ['a'], author: 1, published_on: '2024-01-01T00:00:00.000Z' };
const expanded: Post = { author: { id: 1, name: 'Ada' } satisfies Author };
type ListBody = paths['/items/posts']['get']['responses'][200]['content']['application/json'];
const list: ListBody = { data: [post, expanded], meta: { total_count: 2 } };
type OneBody = paths['/items/posts/{id}']['get']['responses'][200]['content']['application/json'];
const one: OneBody = { data: post };
type Created = operations['createItemsPosts']['responses'][200]['content']['application/json'];
const created: Created = { data: [1, 2] };
type Query = NonNullable<paths['/items/posts']['get']['parameters']['query']>;
const query: Query = { fields: ['id', 'title'], limit: 10 };
type HomePatch = NonNullable<paths['/items/home']['patch']['requestBody']>['content']['application/json'];
const home: HomePatch = { headline: 'Hi' };
type Err = components['schemas']['Error'];
const err: Err = { errors: [{ message: 'x', extensions: { code: 'FORBIDDEN' } }] };
export const all = [list, one, created, query, home, err];
`);
    // A wrong use beside it shows the check can fail.
    writeFileSync(join(tmp, 'wrong.ts'), `
import type { components } from './api';
const post: components['schemas']['ItemsPosts'] = { views: 'many' };
export default post;
`);
    const program = ts.createProgram([join(tmp, 'usage.ts'), join(tmp, 'wrong.ts')], {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true, types: [], lib: ['lib.es5.d.ts'],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ({
      file: d.file ? d.file.fileName.slice(tmp.length + 1) : null,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
    expect(diagnostics.filter((d) => d.file !== 'wrong.ts')).toEqual([]);
    expect(diagnostics.filter((d) => d.file === 'wrong.ts').map((d) => d.message).join('\n')).toMatch(/'string' is not assignable to type 'number'/);
  });
});

describe('catalogue and cache', () => {
  const input = (over: Partial<DocumentInput> = {}): DocumentInput => ({
    title: 'T', version: '1', publicUrl: 'http://x', served: servedBy(t.app.routes), ...over,
  }) as DocumentInput;

  it('every described system route is served (a typo in a described path would show here)', async () => {
    const served = servedBy(t.app.routes);
    const missing = systemEndpoints({ record: () => ({}), key: () => ({ type: 'string' }) })
      .filter((e) => !served(e.method, e.path))
      .map((e) => `${e.method.toUpperCase()} ${e.path}`);
    expect(missing).toEqual([]);
  });

  it('an operation the app does not route is left out; the functions half keeps container operations (from the route manifest)', async () => {
    const schema = await t.services.schema.get();
    const withoutVersions = servedBy(t.app.routes.filter((r) => !r.path.startsWith('/versions')));
    const a = buildDocument(input({ schema, served: withoutVersions }));
    expect(a.paths['/versions']).toBeUndefined();
    expect(a.paths['/users']).toBeDefined();
    const functionsHalf = t.app.routes.filter((r) => !r.path.startsWith('/assets') && !r.path.startsWith('/tus'));
    expect(buildDocument(input({ schema, served: servedBy(functionsHalf) })).paths['/assets/{id}']).toBeUndefined();
    const b = buildDocument(input({ schema, served: servedBy(serviceRoutes(functionsHalf)) }));
    expect(b.paths['/assets/{id}']?.get).toBeDefined();
    expect(b.paths['/tus']?.post).toBeDefined();
  });

  it('builds once per schema overview, again after a schema change', async () => {
    let calls = 0;
    const counted = servedBy(t.app.routes);
    const served = (m: string, p: string) => { calls++; return counted(m, p); };
    const cache = new OpenApiCache();
    const schema = await t.services.schema.get();
    const first = cache.text(input({ schema, served }));
    const afterFirst = calls;
    expect(afterFirst).toBeGreaterThan(0);
    expect(cache.text(input({ schema, served }))).toBe(first);
    expect(calls).toBe(afterFirst);
    const changed = await t.services.schema.invalidate();
    expect(changed).not.toBe(schema);
    cache.text(input({ schema: changed, served }));
    expect(calls).toBeGreaterThan(afterFirst);
    // A changed title rebuilds too.
    const retitled = JSON.parse(cache.text(input({ schema: changed, served, title: 'Other' })));
    expect(retitled.info.title).toBe('Other');
  });

  it('hidden system tables exist in the overview but not in the document', async () => {
    const schema = await t.services.schema.get();
    expect(schema.collections.svc_sessions).toBeDefined();
    const built = buildDocument(input({ schema }));
    for (const hidden of HIDDEN_SYSTEM) expect(JSON.stringify(built)).not.toContain(`"${hidden}"`);
  });
});
