// Example hook: gives new items of the collections in SLUGIFY_COLLECTIONS (default "articles") a slug made from
// their title, unless the payload brings one.
const slugify = (text) => String(text).normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
  .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 200);

export default ({ filter }, { env }) => {
  const collections = new Set((env.SLUGIFY_COLLECTIONS ?? 'articles').split(',').map((c) => c.trim()));
  filter('items.create', (payload, meta) => {
    if (!collections.has(meta.collection) || typeof payload?.title !== 'string' || payload.slug) return payload;
    return { ...payload, slug: slugify(payload.title) };
  });
};
