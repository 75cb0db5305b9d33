// Test extension: records every event it sees as a row of hook_log (event, collection, item, event id, user), and
// exercises every register function.
let registered = false;

export default ({ filter, action, init, schedule }, { logger }) => {
  const record = (items, row) => items('hook_log').createOne(row);

  filter('items.update', (payload, meta) => {
    if (meta.collection !== 'articles' || typeof payload?.title !== 'string') return payload;
    return { ...payload, title: payload.title.trim() };
  });
  action('items.create', async (meta, { items, eventId, accountability }) => {
    if (meta.collection === 'hook_log') return;
    await record(items, { event: 'items.create', collection: meta.collection, item: String(meta.key), event_id: eventId, user_id: accountability?.user ?? null });
  });
  action('items.update', async (meta, { items, eventId }) => {
    if (meta.collection === 'hook_log') return;
    await record(items, { event: 'items.update', collection: meta.collection, item: String(meta.keys?.[0]), event_id: eventId });
  });
  action('items.delete', async (meta, { items, eventId }) => {
    if (meta.collection === 'hook_log') return;
    await record(items, { event: 'items.delete', collection: meta.collection, item: String(meta.keys?.[0]), event_id: eventId });
  });
  action('auth.login', async (meta, { items, eventId }) => {
    await record(items, { event: 'auth.login', collection: null, item: meta.user, event_id: eventId });
  });
  filter('request.error', (errors) => errors.map((e) => ({ ...e, extensions: { ...e.extensions, hint: 'see the docs' } })));
  init('extensions.register', () => { registered = true; });
  init('app.before', ({ app }) => {
    app.get('/recorder-state', (c) => c.json({ data: { registered } }));
  });
  schedule('* * * * *', async ({ items }) => {
    await record(items, { event: 'schedule', collection: null, item: null, event_id: null });
  });
  logger.info('recorder loaded');
};
