import { it } from 'vitest';
import qs from 'qs';
import { createTestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { parseQuery } from '../../core/query/parse.ts';
import { planRead } from '../../core/query/plan.ts';
import { compileList, compileOne } from '../../core/query/compile-select.ts';
import { loadPermissions } from '../../core/access/permissions.ts';
import { systemAccountability } from '../../core/access/accountability.ts';

it('micro', async () => {
  const t = await createTestApp();
  await createContentModel(t.services);
  const schema = await t.services.schema.get();
  const ctx = { db: t.services.database.db, schema, accountability: systemAccountability(), config: t.services.config };
  const permissions = await loadPermissions(ctx);
  const pctx = { schema, permissions, accountability: ctx.accountability, limits: { maxDepth: 10, maxLimit: -1, defaultLimit: 100, maxRelationalDepth: 10 } };
  const cases = {
    pk: '',
    list: 'filter[status][_eq]=published&sort=-published_on&limit=25',
    m2o: 'fields=id,title,author.name&limit=25',
  };
  for (const [name, q] of Object.entries(cases)) {
    const N = 20000;
    let t0 = performance.now();
    for (let i = 0; i < N; i++) qs.parse(q, { depth: 10, strictDepth: true });
    const tq = (performance.now() - t0) / N * 1000;
    const raw = qs.parse(q, { depth: 10, strictDepth: true });
    t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const query = parseQuery(raw as any, { maxDepth: 10, maxLimit: -1 });
      const plan = planRead(pctx, 'posts', query);
      if (name === 'pk') compileOne(plan.select!, 1); else compileList(plan.select!, plan.meta);
    }
    const tp = (performance.now() - t0) / N * 1000;
    console.log(name, 'qs µs', tq.toFixed(1), 'parse+plan+compile µs', tp.toFixed(1));
  }
  // whole request through app.request on PGlite
  const N = 2000;
  let t0 = performance.now();
  for (let i = 0; i < N; i++) await t.app.request('/items/posts/1', { headers: { authorization: 'Bearer static-admin-token' } });
  console.log('app.request pk µs', ((performance.now() - t0) / N * 1000).toFixed(1));
  await t.close();
});
