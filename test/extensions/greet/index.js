// Example endpoint, mounted at /greet behind the service's authentication and rate limits.
export default {
  id: 'greet',
  handler: (router, { items }) => {
    // GET /greet: who is asking.
    router.get('/', (c) => c.json({ data: { hello: c.get('accountability').user ?? 'anonymous' } }));
    // GET /greet/articles: the caller's articles, read with the caller's permissions.
    router.get('/articles', async (c) => c.json({ data: await items(c, 'articles').readByQuery({ fields: ['id', 'title', 'slug'], sort: ['id'] }) }));
  },
};
