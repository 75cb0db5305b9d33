/** settings.public_registration_email_filter: a JSON array of allowed domains (SPEC.md), or Directus' filter
 * object over `email` (`{_and|_or: [...]}`, `{email: {_ends_with: '@x.org'}}` ...). A filter that cannot be
 * understood allows nobody. */

type Check = (email: string) => boolean;

const OPERATORS: Record<string, (email: string, arg: unknown) => boolean> = {
  _eq: (e, a) => typeof a === 'string' && e === a.toLowerCase(),
  _neq: (e, a) => typeof a === 'string' && e !== a.toLowerCase(),
  _ends_with: (e, a) => typeof a === 'string' && e.endsWith(a.toLowerCase()),
  _nends_with: (e, a) => typeof a === 'string' && !e.endsWith(a.toLowerCase()),
  _starts_with: (e, a) => typeof a === 'string' && e.startsWith(a.toLowerCase()),
  _nstarts_with: (e, a) => typeof a === 'string' && !e.startsWith(a.toLowerCase()),
  _contains: (e, a) => typeof a === 'string' && e.includes(a.toLowerCase()),
  _icontains: (e, a) => typeof a === 'string' && e.includes(a.toLowerCase()),
  _ncontains: (e, a) => typeof a === 'string' && !e.includes(a.toLowerCase()),
  _in: (e, a) => Array.isArray(a) && a.some((v) => typeof v === 'string' && v.toLowerCase() === e),
  _nin: (e, a) => Array.isArray(a) && !a.some((v) => typeof v === 'string' && v.toLowerCase() === e),
};

function compile(filter: unknown, depth: number): Check {
  if (depth > 10 || typeof filter !== 'object' || filter === null || Array.isArray(filter)) return () => false;
  const checks: Check[] = Object.entries(filter).map(([key, value]): Check => {
    if (key === '_and' || key === '_or') {
      if (!Array.isArray(value)) return () => false;
      const parts = value.map((v) => compile(v, depth + 1));
      return key === '_and' ? (e) => parts.every((p) => p(e)) : (e) => parts.some((p) => p(e));
    }
    if (key !== 'email' || typeof value !== 'object' || value === null) return () => false;
    const ops = Object.entries(value).map(([op, arg]) => {
      const fn = OPERATORS[op];
      return fn ? (e: string) => fn(e, arg) : () => false;
    });
    return (e) => ops.every((o) => o(e));
  });
  return (e) => checks.every((c) => c(e));
}

export function emailAllowed(filter: unknown, email: string): boolean {
  if (filter === null || filter === undefined) return true;
  const value = typeof filter === 'string' ? safeParse(filter) : filter;
  if (value === null) return true;
  const lower = email.toLowerCase();
  if (Array.isArray(value)) {
    if (value.length === 0) return true;
    const domain = lower.slice(lower.lastIndexOf('@') + 1);
    return value.some((d) => typeof d === 'string' && d.toLowerCase().replace(/^@/, '') === domain);
  }
  return compile(value, 0)(lower);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
