import autocannon from 'autocannon';
const body = JSON.stringify({ title: 'p', body: 'b', status: 'draft', views: 1, published_on: '2024-01-01T00:00:00Z', author: 1, comments: [{ body: 'c0' }, { body: 'c1' }, { body: 'c2' }] });
const r = await autocannon({ url: 'http://127.0.0.1:8071', connections: 10, duration: Number(process.argv[2] ?? 8), requests: [{ method: 'POST', path: '/items/posts', headers: { authorization: 'Bearer proftoken123', 'content-type': 'application/json' }, body }] });
console.log('req/s', r.requests.average, 'non2xx', r.non2xx, 'p99', r.latency.p99);
