/** /admin/content: the navigation pane (collections in their folders, with bookmarks) beside the overview, a
 * collection's list (/content/:collection), or an item. Schema, permissions and saved views are read once and
 * shared through the query cache. */
import { Suspense } from 'react';
import { Link, Route, Switch, useParams } from 'wouter';
import { preloadable } from '../app/lazy.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { CollectionsNav } from './nav/CollectionsNav.tsx';
import { Overview } from './nav/Overview.tsx';
import { buildTree } from './nav/tree.ts';
import { usePresets } from './presets.ts';
import { can, titleOf, useCollections, usePermissions, usePolicyGlobals, type Collection } from './schema.ts';
import './nav/nav.css';

const ListPage = preloadable(() => import('./list/ListPage.tsx'), <div className="main-pane"><Loading label="Loading" /></div>);
const ItemPage = preloadable(() => import('./item/ItemPage.tsx'), <div className="main-pane"><Loading label="Loading" /></div>);

// The page of the address being opened loads with this module rather than after its data.
const opening = /^\/admin\/content\/[^/]+(\/[^/]+)?\/?$/.exec(location.pathname);
if (opening) void (opening[1] ? ItemPage : ListPage).preload();

export default function ContentModule() {
  const collections = useCollections();
  const perms = usePermissions();
  const globals = usePolicyGlobals();
  const presets = usePresets();

  const failed = collections.error ?? perms.error ?? globals.error;
  if (failed) {
    return (
      <div className="page-message">
        <ErrorNotice error={failed} onRetry={() => { void collections.refetch(); void perms.refetch(); void globals.refetch(); }} />
      </div>
    );
  }
  if (!collections.data || !perms.data || !globals.data) return <Loading label="Loading collections" />;
  const admin = globals.data.admin_access;
  const readable = (name: string): boolean => can(perms.data, admin, name, 'read');
  const tree = buildTree(collections.data, readable);
  const find = (name: string): Collection | undefined => collections.data.find((c) => c.collection === name && c.schema !== null && !c.collection.startsWith('svc_'));

  return (
    <div className="module-layout content-module">
      <CollectionsNav tree={tree} presets={presets.data} perms={perms.data} admin={admin} />
      <main className="content-main">
        <Suspense fallback={<div className="main-pane"><Loading label="Loading" /></div>}>
          <Switch>
            <Route path="/"><Overview tree={tree} admin={admin} /></Route>
            <Route path="/:collection/:id">
              {(params: { collection: string; id: string }) => <ItemRoute find={find} readable={readable} collection={params.collection} id={params.id} />}
            </Route>
            <Route path="/:collection">
              <CollectionRoute find={find} readable={readable} />
            </Route>
            <Route><NoSuchPage /></Route>
          </Switch>
        </Suspense>
      </main>
    </div>
  );
}

/** wouter has already applied decodeURI to the path; what it leaves (%2F, %23...) is decoded here, and a key that
 * was decoded already (a literal %) is taken as it is. */
function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

type Finder = { find(name: string): Collection | undefined; readable(name: string): boolean };

function Missing({ name, exists }: { name: string; exists: boolean }) {
  return (
    <div className="main-pane">
      <div className="page-message">
        <h1>{exists ? `No access to ${titleOf(name)}` : 'No such collection'}</h1>
        <p>{exists ? 'Your role may not read this collection.' : `There is no collection named “${name}”.`} Pick one on the left, or go to the <Link href="">overview</Link>.</p>
      </div>
    </div>
  );
}

/** /:collection: the list, or a singleton's one item. */
function CollectionRoute({ find, readable }: Finder) {
  const { collection: raw } = useParams<{ collection: string }>();
  const name = decodeSegment(raw);
  const collection = find(name);
  if (!collection || !readable(name)) return <Missing name={name} exists={Boolean(collection)} />;
  if (collection.meta?.singleton) return <ItemPage collection={name} id={null} />;
  return <ListPage collection={collection} />;
}

/** /:collection/:id: one item ('+' a new one). */
function ItemRoute({ find, readable, collection: raw, id }: Finder & { collection: string; id: string }) {
  const name = decodeSegment(raw);
  const collection = find(name);
  // A new item needs create, not read; the editor says what the caller may do.
  if (!collection) return <Missing name={name} exists={false} />;
  if (id !== '+' && !readable(name)) return <Missing name={name} exists />;
  return <ItemPage collection={name} id={decodeSegment(id)} />;
}

function NoSuchPage() {
  return (
    <div className="main-pane">
      <div className="page-message">
        <h1>Page not found</h1>
        <p>There is nothing at this address. Pick a collection on the left.</p>
      </div>
    </div>
  );
}
