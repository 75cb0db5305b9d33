/** The direction of imports, written down once. core/ is a stack of units (a folder under core/, or a
 * top-level file such as core/config.ts); a unit may import only units in a strictly lower layer. Units that
 * share a layer are peers and stay independent of each other. Where today's code still points the wrong way,
 * the edge is listed in ALLOWED_VIOLATIONS with its reason, so that list can only shrink: a new violation
 * fails, and so does an entry that no longer matches any import. Beside the stack: nothing in core/ imports
 * functions/ or container/ (HTTP and hosting sit above the core), and functions/ does not import container/. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Bottom first. A name is a folder or top-level file of core/ (without .ts), or a deeper file or folder
 * ('schema/ddl', 'files/import/addresses') that belongs elsewhere than the rest of its folder; the longest
 * named path wins. */
const LAYERS: readonly (readonly string[])[] = [
  // Plain values and types that import nothing of the core's rules. The caller's identity is a plain type
  // every layer passes along, and the schema overview's shapes are plain types, so both sit here although
  // they live in access/ and schema/. A SAML IdP's metadata reader (auth/sso/saml-metadata) imports nothing of the
  // core: the provider configuration checks metadata with it.
  ['errors', 'uuid', 'plain-object', 'crypto', 'streams', 'access/accountability', 'schema/types', 'versions/types',
    'files/import/addresses', 'auth/sso/types', 'auth/sso/saml-metadata'],
  // The configuration: config.ts parses every variable once, with the sections that live beside their module
  // (files/config, ratelimit/config) as plain parsers.
  ['files/config', 'ratelimit/config', 'auth/sso/config'],
  ['config'],
  // Plumbing: database, shared store, queue, mail transport, cron, metrics, load sampler, and the lazy loader of the
  // image library (assets/load-sharp), which file metadata uses too.
  ['db', 'store', 'queue', 'mail', 'schedule', 'metrics', 'pressure', 'assets/load-sharp'],
  // Backups of the embedded engine: the database's dump and the local storage root's files, read from the db port and
  // the paths of the configuration only.
  ['backup'],
  // What every service call carries (executor, schema overview, accountability, bus).
  ['context'],
  // The owners of svc_users' statements (core/users/table.ts: auth, access, workflow and notify read users through it)
  // and of svc_extension_settings' (core/extensions/settings-table.ts: the storage and sign-on providers' records).
  ['users/table', 'extensions/settings-table'],
  // The in-app channel's writer (svc_notifications rows and their sent log): a login lockout and the workflow
  // tell people in-app through it, below the rest of notify/.
  ['notify/inapp'],
  ['events'],
  ['schema'],
  ['query'],
  // The permission engine: resolve, builtin, validation, permissions, app-permission checks, and the read
  // scope of a share token (read-access, share-reach), so items/ reads through access/ alone.
  ['access', 'versions/readable-delta'],
  // The DDL services (collections, fields, relations) check the caller's permission on svc_collections/svc_fields.
  ['schema/ddl'],
  // Types only: the capabilities a function takes instead of the whole Services (core/ports.ts).
  ['ports'],
  ['auth'],
  ['items'],
  ['versions'],
  ['shares'],
  // Record services for roles, policies, permissions, access and app permissions: they write through items/.
  ['admin'],
  ['storage'],
  ['files'],
  ['assets', 'tus'],
  ['system'],
  ['notify'],
  ['users', 'workflow', 'publishing'],
  // The MCP server (core/mcp): tools over the services below (schema, items, versions, workflow, files, notify), as the
  // REST routes use them.
  ['transfer', 'graphql', 'openapi', 'ratelimit', 'realtime', 'mcp'],
  // Schema as code: the snapshot, diff and apply of the schema (schema/ddl) and of the configuration sections, whose
  // rows it writes through their owners (admin, system, storage, auth, notify, workflow).
  ['schema/snapshot'],
  ['extensions'],
  ['bootstrap'],
  // The composition root: builds everything, imported by nothing below it.
  ['services'],
];

/** Edges that point against LAYERS today, as 'core/from.ts -> core/to.ts', each with why it remains.
 * Shrink this list; never grow it without a reason a reviewer accepts. */
const ALLOWED_VIOLATIONS: Readonly<Record<string, string>> = {
  'core/items/write/nested.ts -> core/shares/mint.ts':
    'a nested svc_shares create mints the share as a top-level one does; the check is imported, not registered, so no path can write a share without it',
};

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Static imports and re-exports (`import x from`, `import type`, `export * from`, bare `import '...'`) and
 * dynamic `import('...')` with a literal specifier. Comments are stripped first so prose cannot count. */
const IMPORT = /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

interface Edge {
  from: string;
  to: string;
}

/** Every relative import of the .ts files under `dir`, as repository-relative paths. */
function edges(dir: string): Edge[] {
  const out: Edge[] = [];
  for (const file of tsFiles(join(ROOT, dir))) {
    const source = stripComments(readFileSync(file, 'utf8'));
    for (const match of source.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      if (spec === undefined || !spec.startsWith('.')) continue;
      out.push({ from: rel(file), to: rel(resolve(dirname(file), spec)) });
    }
  }
  return out;
}

function rel(path: string): string {
  return relative(ROOT, path).split(sep).join('/');
}

const LAYER_OF = new Map<string, number>();
LAYERS.forEach((names, layer) => {
  for (const name of names) LAYER_OF.set(name, layer);
});

/** The unit a core/ path belongs to: a single-file unit when one is named, else its folder or top file. */
function unitOf(path: string): string | undefined {
  if (!path.startsWith('core/')) return undefined;
  const parts = path.slice('core/'.length).replace(/\.ts$/, '').split('/');
  for (let depth = parts.length; depth > 1; depth--) {
    const named = parts.slice(0, depth).join('/');
    if (LAYER_OF.has(named)) return named;
  }
  return parts[0];
}

const coreEdges = edges('core');
const key = (edge: Edge) => `${edge.from} -> ${edge.to}`;

describe('import direction', () => {
  it('names every unit of core/ in exactly one layer', () => {
    const units = new Set(coreEdges.flatMap((e) => [unitOf(e.from), unitOf(e.to)]).filter((u) => u !== undefined));
    const unplaced = [...units].filter((u) => !LAYER_OF.has(u)).sort();
    expect(unplaced).toEqual([]);
    const names = LAYERS.flat();
    expect(names.length).toBe(new Set(names).size);
  });

  it('core/ imports only downwards, apart from the listed exceptions', () => {
    const violations = new Set<string>();
    for (const edge of coreEdges) {
      const from = unitOf(edge.from);
      const to = unitOf(edge.to);
      if (from === undefined || to === undefined || from === to) continue;
      if (LAYER_OF.get(to)! >= LAYER_OF.get(from)!) violations.add(key(edge));
    }
    const unexpected = [...violations].filter((v) => !(v in ALLOWED_VIOLATIONS)).sort();
    expect(unexpected, 'imports against the layer order in core/ (invert them, or list them with a reason)').toEqual([]);
    const stale = Object.keys(ALLOWED_VIOLATIONS).filter((v) => !violations.has(v)).sort();
    expect(stale, 'allowlisted violations that no longer exist: remove them from ALLOWED_VIOLATIONS').toEqual([]);
  });

  it('nothing in core/ imports functions/ or container/', () => {
    const outward = coreEdges.filter((e) => /^(functions|container)\//.test(e.to)).map(key);
    expect(outward).toEqual([]);
  });

  it('nothing in functions/ imports container/ (the route manifest generator, which reads both halves, is in scripts/)', () => {
    const found = edges('functions').filter((e) => e.to.startsWith('container/')).map(key);
    expect(found).toEqual([]);
  });

  it('core/ports.ts holds types only', () => {
    // Ports are what a function asks of its host; code in them would make every importer depend on it.
    const source = stripComments(readFileSync(join(ROOT, 'core/ports.ts'), 'utf8'));
    const statements = source.split('\n').filter((line) => /^(import|export)\b/.test(line));
    expect(statements.filter((line) => !/^(import type |export (interface|type) )/.test(line))).toEqual([]);
  });

  it('the scanner sees the imports it must see', () => {
    // Guards the regex: a type import, a re-export and a dynamic import are found.
    const all = new Set(coreEdges.map(key));
    expect(all.has('core/context.ts -> core/config.ts')).toBe(true);
    expect(all.has('core/schema/ddl/index.ts -> core/schema/ddl/collections.ts')).toBe(true);
    expect(all.has('core/services.ts -> core/db/migrate.ts')).toBe(true);
    expect(coreEdges.length).toBeGreaterThan(500);
  });
});
