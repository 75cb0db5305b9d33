// Test extension: its filter throws for collection "guarded" (a plain Error: the request gets a clean 500
// envelope), its action throws for "guarded" too (logged; the server keeps serving).
export default ({ filter, action }) => {
  filter('items.create', (payload, meta) => {
    if (meta.collection === 'guarded' && payload?.name === 'bad') throw new Error('secret internal detail');
    return payload;
  });
  action('items.create', (meta) => {
    if (meta.collection === 'guarded') throw new Error('action failure');
  });
};
