/** Stable names for components, operationIds and tags, derived from collection names. */

/** `blog_posts` -> `BlogPosts`; characters outside [A-Za-z0-9] split words; a leading digit gets a `C` prefix. */
export function pascal(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('') || 'Collection';
  return /^[0-9]/.test(joined) ? `C${joined}` : joined;
}

/** One unique PascalCase stem per collection. Collisions (`my_posts` and `my__posts`) are resolved in sorted
 * order with a numeric suffix, so the same set of collections always yields the same names. */
export function stems(collections: string[], taken: ReadonlySet<string> = new Set()): Map<string, string> {
  const used = new Set(taken);
  const out = new Map<string, string>();
  for (const collection of [...collections].sort()) {
    const base = pascal(collection);
    let stem = base;
    for (let n = 2; used.has(stem); n++) stem = `${base}${n}`;
    used.add(stem);
    out.set(collection, stem);
  }
  return out;
}

/** The tag of a user collection's item operations. */
export function itemsTag(collection: string): string {
  return `Items: ${collection}`;
}

/** A `#/components/schemas/...` reference. */
export function schemaRef(name: string): { $ref: string } {
  return { $ref: `#/components/schemas/${name}` };
}
