/** /admin/data-model (administrators): the project's collections in their folders beside the screens that change
 * them. The overview creates collections and folders; a collection's page holds its fields (order, groups, each
 * field's type, interface, validation and conditions, the relation wizards) and its settings. */
import { Route, Switch } from 'wouter';
import { preloadable } from '../app/lazy.ts';
import { titleOf, useCollections } from '../content/schema.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { SectionLayout, type Section } from '../ui/SectionLayout.tsx';
import { modelTree } from './tree.ts';
import './datamodel.css';

const pane = <div className="main-pane"><Loading label="Loading" /></div>;
const CollectionsPage = preloadable(() => import('./CollectionsPage.tsx'), pane);
const CollectionPage = preloadable<{ collection: string }>(() => import('./CollectionPage.tsx'), pane);

// The page of the address being opened loads with this module.
void (/^\/admin\/data-model\/[^/]+/.test(location.pathname) ? CollectionPage : CollectionsPage).preload();


export default function DataModelModule() {
  const collections = useCollections();
  if (collections.error) return <div className="page-message"><ErrorNotice error={collections.error} onRetry={() => void collections.refetch()} /></div>;
  if (!collections.data) return <Loading label="Loading the data model" />;
  // Every user collection and folder in tree order (system collections are not the data model's).
  const sections: Section[] = [{ href: '/', label: 'All collections' }, ...modelTree(collections.data).map(({ collection: c, depth }) => ({
    href: `/${encodeURIComponent(c.collection)}`, label: titleOf(c.collection), depth,
    hint: c.schema === null ? 'folder' : c.meta?.singleton ? 'single' : c.meta?.hidden ? 'hidden' : undefined,
  }))];
  return (
    <SectionLayout title="Data model" sections={sections}>
      <Switch>
        <Route path="/"><CollectionsPage /></Route>
        <Route path="/:collection">{(p: { collection: string }) => <CollectionPage key={p.collection} collection={decodeURIComponent(p.collection)} />}</Route>
      </Switch>
    </SectionLayout>
  );
}
