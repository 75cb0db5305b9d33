/** Which operations the running app routes, from its route table (method + path pattern): documented
 * operations are checked against it, so the document describes only routes that exist. Paths are compared by
 * shape (parameter names ignored): `/users/{id}` and `/users/:id` are both `/users/:`. */

export type Served = (method: string, path: string) => boolean;

export interface RouteEntry { method: string; path: string }

/** `/users/{id}` or `/users/:id` -> `/users/:`. */
export function pathShape(path: string): string {
  return path.split('/').map((s) => (s.startsWith(':') || /^\{[^}]+\}$/.test(s) ? ':' : s)).join('/');
}

export function servedBy(routes: readonly RouteEntry[]): Served {
  const table = new Set<string>();
  for (const r of routes) if (r.method !== 'ALL') table.add(`${r.method.toUpperCase()} ${pathShape(r.path)}`);
  return (method, path) => {
    const m = method.toUpperCase();
    const shape = pathShape(path);
    // HEAD is answered through GET routes.
    return table.has(`${m} ${shape}`) || (m === 'HEAD' && table.has(`GET ${shape}`));
  };
}
