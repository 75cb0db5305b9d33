// Test extension: a filter that takes 10 s on collection "slow_things" (EXTENSIONS_HOOK_TIMEOUT bounds it).
export default ({ filter }) => {
  filter('items.create', async (payload, meta) => {
    if (meta.collection === 'slow_things') await new Promise((resolve) => setTimeout(resolve, 10_000).unref());
    return payload;
  });
};
