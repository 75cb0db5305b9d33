// Test extension: registers a filter, then throws while loading. Nothing it registered may remain.
export default ({ filter }) => {
  filter('items.create', () => { throw new Error('must never run'); });
  throw new Error('broken on purpose');
};
