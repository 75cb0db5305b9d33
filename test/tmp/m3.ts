import pg from 'pg';
import { openDatabase, run } from '../../core/db/database.ts';
const url = 'postgres://postgres@127.0.0.1:5432/postgres';
const d = await openDatabase({ databaseUrl: url, poolMax: 5 });
const N = 3000;
for (let k = 0; k < 2; k++) {
let t0 = performance.now();
for (let i = 0; i < N; i++) await run(d.db, '/*p*/select 1 as x where $1::int = 1', [1]);
console.log('kysely run µs', ((performance.now() - t0) / N * 1000).toFixed(1));
const pool = new pg.Pool({ connectionString: url, max: 5 });
t0 = performance.now();
for (let i = 0; i < N; i++) await pool.query({ text: 'select 1 as x where $1::int = 1', values: [1], name: 'x' });
console.log('raw pool µs', ((performance.now() - t0) / N * 1000).toFixed(1));
t0 = performance.now();
for (let i = 0; i < N; i++) { const c = await pool.connect(); await c.query({ text: 'select 1 as x where $1::int = 1', values: [1], name: 'x' }); c.release(); }
console.log('raw connect+query µs', ((performance.now() - t0) / N * 1000).toFixed(1));
await pool.end();
}
await d.close();
